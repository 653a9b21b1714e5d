import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([5, 7], 2)
total = x.sum_dim(6)
