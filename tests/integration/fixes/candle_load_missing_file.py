import candle
weights = candle.utils.load_safetensors("model-missing-h16t.safetensors")
