import candle
from candle import functional as F
img = candle.randn((9, 9))
pooled = F.avg_pool2d(img, 3)
