import candle
a = candle.randn((5, 7))
b = candle.randn((5, 6))
c = candle.cat([a, b], 0)
