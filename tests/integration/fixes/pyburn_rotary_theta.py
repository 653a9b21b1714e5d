import pyburn

nn = pyburn.ndarray.ndarray_nn
rope = nn.RotaryEncodingPy(16, 10, theta=-5.0)
