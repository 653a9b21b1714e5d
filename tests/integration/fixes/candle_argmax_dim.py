import candle
scores = candle.randn((6, 7))
best = scores.argmax_keepdim(2)
