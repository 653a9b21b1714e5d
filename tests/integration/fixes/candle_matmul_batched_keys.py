import candle
q = candle.randn((6, 9, 5))
k = candle.randn((6, 7, 5))
scores = q.matmul(k)
