from .quant import upcast_cache, dequant_layer, dequant_rows
