import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([6, 8], 2)
mean = TensorPy.ones([6, 5], 2)
centered = x.sub(mean)
