import candle
a = candle.ones((6, 5), dtype=candle.i64)
b = candle.ones((5, 8), dtype=candle.i64)
c = a.matmul(b)
