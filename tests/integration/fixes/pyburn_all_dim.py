import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([5, 7], 2)
flags = x.is_nan()
none_nan = flags.all_dim(5)
