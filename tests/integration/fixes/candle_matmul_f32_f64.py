import candle
x = candle.randn((5, 7))
w = candle.randn((7, 6)).to_dtype(candle.f64)
y = x.matmul(w)
