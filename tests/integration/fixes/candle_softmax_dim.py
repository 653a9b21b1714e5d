import candle
from candle import functional as F
logits = candle.randn((6, 7))
probs = F.softmax(logits, 3)
