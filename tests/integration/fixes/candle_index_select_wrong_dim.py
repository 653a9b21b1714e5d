import candle
x = candle.randn((6, 11))
ids = candle.tensor([0, 4, 9])
cols = x.index_select(ids, 0)
