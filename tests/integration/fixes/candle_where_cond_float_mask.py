import candle
mask = candle.randn((5, 6))
a = candle.randn((5, 6))
b = candle.zeros((5, 6))
out = mask.where_cond(a, b)
