import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
a = TensorPy.ones([5, 7], 2)
b = TensorPy.ones([7, 5], 2)
c = a.add(b)
