import candle
x = candle.randn((5, 8))
mean = candle.randn((5,))
centered = x.broadcast_sub(mean)
