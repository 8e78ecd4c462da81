import torch


class AiterPagedAttentionImpl:
    """ROCm paged attention via aiter; gfx90a has no FP8 decode kernel in aiter."""

    def __init__(self, num_heads, head_size, scale, kv_cache_dtype, gfx_arch):
        self.num_heads, self.head_size, self.scale = num_heads, head_size, scale
        self.kv_cache_dtype = kv_cache_dtype
        self.fp8_kernel = gfx_arch in ("gfx942", "gfx950")

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8") and not self.fp8_kernel:
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 whole key plane widened on gfx90a, inside the piecewise-captured forward
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 value plane
        elif self.kv_cache_dtype.startswith("fp8"):
            query = query.to(key_cache.dtype)  # negative: query quantized for the FP8 kernel
        k_scale = layer._k_scale.to(torch.float32)  # negative: scale
        return self._paged(query, key_cache, value_cache, attn_metadata, k_scale, output)

    def _paged(self, *args):
        return args
