import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones([5, 7], 3)
