import candle
x = candle.randn((5, 8))
ids = candle.tensor([[1.0], [2.0], [0.0], [7.0], [3.0]])
picked = x.gather(ids, 1)
