import candle
x = candle.randn((5, 6))
y = x.to_device("cuda")
