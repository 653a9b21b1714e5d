import pyburn

nn = pyburn.ndarray.ndarray_nn
ff = nn.transformer.PositionWiseFeedForwardPy(12, 24, dropout=1.5)
