import candle
x = candle.randn((5, 7))
w = candle.randn((6, 7))  # stored as (out, in)
y = x.matmul(w)
