import candle
a = candle.randn((11, 6))
b = candle.randn((6, 11))
c = a.broadcast_mul(b)
