import candle
x = candle.randn((7, 10))
s = candle.randn((7,))
y = x * s
