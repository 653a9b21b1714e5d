import candle
from candle import nn
layer = nn.Linear(6, 5)
x = candle.randn((9, 7))
y = layer(x)
