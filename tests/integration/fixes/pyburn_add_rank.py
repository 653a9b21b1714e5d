import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([5, 7], 2)
bias = TensorPy.ones([7], 1)
y = x.add(bias)
