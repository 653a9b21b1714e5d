import pyburn

nn = pyburn.ndarray.ndarray_nn
norm = nn.GroupNormPy(5, 12)
