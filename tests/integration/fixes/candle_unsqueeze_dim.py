import candle
x = candle.randn((6, 7))
y = x.unsqueeze(5)
