import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([8, 9], 2)
p = x.prod_dim(3)
