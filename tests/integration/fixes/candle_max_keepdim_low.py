import candle
x = candle.randn((5, 6, 7))
m = x.max_keepdim(-4)
