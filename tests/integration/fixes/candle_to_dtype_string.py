import candle
x = candle.randn((10, 3))
y = x.to_dtype("float32")
