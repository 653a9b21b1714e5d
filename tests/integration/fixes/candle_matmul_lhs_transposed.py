import candle
x = candle.randn((7, 5))
w = candle.randn((7, 6))
y = x.matmul(w)
