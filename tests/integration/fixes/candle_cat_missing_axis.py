import candle
batch = candle.randn((6, 5))
row = candle.randn((5,))
c = candle.cat([batch, row], 0)
