import pyburn

nn = pyburn.ndarray.ndarray_nn
deconv = nn.conv.ConvTranspose1dPy([6, 10], 5, groups=4)
