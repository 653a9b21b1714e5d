import candle
x = candle.randn((6, 8))
b = candle.randn((6,))
y = x + b
