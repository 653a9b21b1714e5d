import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([6, 5, 7], 3)
avg = x.mean_dim(4)
