import candle
v = candle.randn((7,))
col = v.t()
