import candle
x = candle.randn((5, 6, 7))
norm = candle.randn((5, 7))
y = x / norm
