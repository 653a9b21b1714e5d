import candle
m = candle.randn((7, 5))
v = candle.randn((5,))
y = m.matmul(v)
