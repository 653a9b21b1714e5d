import pyburn

nn = pyburn.ndarray.ndarray_nn
conv = nn.conv.Conv2dPy([5, 7], [4, 4], padding=nn.PaddingConfig2dPy.same)
