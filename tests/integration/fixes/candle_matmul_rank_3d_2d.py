import candle
x = candle.randn((8, 5, 6))
w = candle.randn((6, 9))
y = x.matmul(w)
