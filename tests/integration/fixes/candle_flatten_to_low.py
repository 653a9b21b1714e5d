import candle
x = candle.randn((5, 6, 7))
flat = x.flatten_to(-6)
