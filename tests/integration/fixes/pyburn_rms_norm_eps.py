import pyburn

nn = pyburn.ndarray.ndarray_nn
norm = nn.RmsNormPy(6, eps=0.0)
