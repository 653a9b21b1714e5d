import pyburn

nn = pyburn.ndarray.ndarray_nn
rope = nn.RotaryEncodingPy(12, 9)
