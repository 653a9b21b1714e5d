import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([5, 6, 7], 3)
total = x.sum_dim(3)
