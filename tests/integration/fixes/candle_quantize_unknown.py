import candle
w = candle.randn((5, 64))
q = w.quantize("q5")
