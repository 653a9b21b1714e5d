import pyburn

nn = pyburn.ndarray.ndarray_nn
pe = nn.PositionalEncodingPy(7, 10)
