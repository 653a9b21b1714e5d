import candle
x = candle.randn((6, 20))
heads = x.reshape((6, 4, 6))
