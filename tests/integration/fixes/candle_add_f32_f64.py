import candle
a = candle.randn((5, 6))
b = candle.randn((5, 6)).to_dtype(candle.f64)
c = a + b
