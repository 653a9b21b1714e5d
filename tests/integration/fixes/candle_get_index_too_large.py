import candle

rows = candle.randn((6, 5))
last = rows.get(6)
