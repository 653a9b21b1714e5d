import candle
x = candle.randn((9, 6))
tail = x.narrow(0, 5, 7)
