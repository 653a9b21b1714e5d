import candle
x = candle.randn((5, 6, 7))
y = candle.randn((5, 7, 6))
s = candle.stack([x, y], 1)
