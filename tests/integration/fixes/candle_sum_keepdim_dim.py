import candle
x = candle.randn((5, 6, 7))
s = x.sum_keepdim(3)
