import candle
x = candle.randn((8, 7))
y = x.to_device("gpu")
