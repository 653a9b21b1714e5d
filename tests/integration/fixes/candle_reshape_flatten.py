import candle
x = candle.randn((5, 6, 7))
flat = x.reshape((5, 36))
