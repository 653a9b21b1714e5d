import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
nn = pyburn.ndarray.ndarray_nn
layer = nn.LinearPy(6, 5)
x = TensorPy.ones([7, 9], 2)
y = layer.forward(x)
