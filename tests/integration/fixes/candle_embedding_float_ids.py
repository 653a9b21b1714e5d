import candle
from candle import nn
emb = nn.Embedding(10, 6)
ids = candle.tensor([[1.0, 3.0, 9.0]])
vectors = emb(ids)
