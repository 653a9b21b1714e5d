import candle
x = candle.ones((5, 6), dtype=candle.i64)
y = x.exp()
