import candle
a = candle.randn((9, 5))
b = candle.randn((5, 9))
d = a - b
