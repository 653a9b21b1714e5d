import candle
from candle import nn
layer = nn.Linear(6, 5)
x = candle.tensor([[1, 2, 3, 4, 5, 6]])
y = layer(x)
