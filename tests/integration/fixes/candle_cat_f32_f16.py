import candle
a = candle.randn((6, 5))
b = candle.randn((8, 5)).to_dtype(candle.f16)
c = candle.cat([a, b], 0)
