import candle
v = candle.randn((9,))
e = v.broadcast_as((9, 11))
