import pyburn

nn = pyburn.ndarray.ndarray_nn
conv = nn.conv.Conv2dPy([6, 9], [3, 3], groups=4)
