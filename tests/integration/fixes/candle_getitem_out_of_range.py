import candle

batch = candle.randn((8, 5))
sample = batch[8]
