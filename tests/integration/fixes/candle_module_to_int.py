import candle
from candle import nn
layer = nn.Linear(6, 5)
half = layer.to("u8")
