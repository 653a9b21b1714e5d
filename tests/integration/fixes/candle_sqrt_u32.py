import candle
counts = candle.tensor([[1, 4, 9], [16, 25, 36]])
roots = counts.sqrt()
