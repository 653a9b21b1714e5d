import candle
from candle import functional as F
img = candle.randn((6, 9, 9))  # (channels, h, w)
pooled = F.max_pool2d(img, 2)
