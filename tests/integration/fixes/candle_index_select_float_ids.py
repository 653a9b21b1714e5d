import candle
x = candle.randn((6, 11))
ids = candle.tensor([0.0, 2.0, 5.0])
rows = x.index_select(ids, 0)
