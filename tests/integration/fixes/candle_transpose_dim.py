import candle
x = candle.randn((5, 6, 7))
y = x.transpose(1, 3)
