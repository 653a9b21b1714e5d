import pyburn

nn = pyburn.ndarray.ndarray_nn
encoder = nn.transformer.TransformerEncoderPy(12, 16, 4, 2, dropout=1.25)
