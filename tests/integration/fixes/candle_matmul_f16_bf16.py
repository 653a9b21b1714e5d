import candle
x = candle.randn((9, 6)).to_dtype(candle.f16)
w = candle.randn((6, 5)).to_dtype(candle.bf16)
y = x.matmul(w)
