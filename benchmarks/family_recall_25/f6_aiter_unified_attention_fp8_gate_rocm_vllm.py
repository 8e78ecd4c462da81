import torch


class AiterUnifiedAttentionImpl:
    def __init__(self, kv_cache_dtype, dtype, gfx):
        self.kv_cache_dtype = kv_cache_dtype
        self.dtype = dtype
        self.fp8_capable = gfx in ("gfx942", "gfx950")

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8"):
            if self.fp8_capable:
                key_cache = key_cache.view(torch.float8_e4m3fnuz)  # negative: .view(dtype)
                value_cache = value_cache.view(torch.float8_e4m3fnuz)  # negative: .view(dtype)
            else:
                key_cache = key_cache.view(torch.float8_e4m3fn).to(self.dtype)  # positive: f6 CL001 gfx90a fallback widens the whole key plane
                value_cache = value_cache.view(torch.float8_e4m3fn).to(self.dtype)  # positive: f6 CL001 gfx90a fallback widens the whole value plane
        k_new = key.to(self.dtype)  # negative: new tokens
        return key_cache, value_cache, k_new
