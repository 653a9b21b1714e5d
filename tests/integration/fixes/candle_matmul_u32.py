import candle
a = candle.tensor([[1, 2, 3], [4, 5, 6]])
b = candle.tensor([[7, 8], [9, 10], [11, 12]])
c = a.matmul(b)
