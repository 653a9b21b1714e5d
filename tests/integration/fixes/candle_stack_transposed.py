import candle
a = candle.randn((6, 9))
b = candle.randn((9, 6))
s = candle.stack([a, b], 0)
