import candle
x = candle.ones((7, 9), dtype=candle.u8)
y = x.powf(2.0)
