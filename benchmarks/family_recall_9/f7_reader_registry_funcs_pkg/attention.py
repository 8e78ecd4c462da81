from .readers import READERS


class RegistryAttention:
    def __init__(self, cache_engine, layer_idx, fmt="int8"):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx
        self.fmt = fmt

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k, v = READERS[self.fmt](self.cache_engine, self.layer_idx)
        offs = READERS["offsets"](attn_metadata, self.layer_idx)
        return query, k, v, offs
