import candle
from candle import nn
layer = nn.Linear(6, 5)
x = candle.randn((9, 6)).to_dtype(candle.f64)
y = layer(x)
