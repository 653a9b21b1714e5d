import candle
x = candle.randn((7, 5))
part = x.narrow(2, 0, 6)
