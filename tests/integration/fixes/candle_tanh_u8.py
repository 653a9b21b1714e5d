import candle
from candle import functional as F
x = candle.ones((7, 5), dtype=candle.u8)
y = F.tanh(x)
