import candle
from candle import nn
emb = nn.Embedding(10, 6)
ids = candle.tensor([[1, 12, 3]])
vectors = emb(ids)
