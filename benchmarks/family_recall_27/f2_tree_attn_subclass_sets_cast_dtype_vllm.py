import torch


class TritonAttentionImpl:
    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype, **kwargs):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale
        self.cache_cast_dtype = None

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.cache_cast_dtype is not None:
            key_cache = key_cache.to(self.cache_cast_dtype)  # positive: f2 CL001 whole key cache, flag set by the tree subclass
            value_cache = value_cache.to(self.cache_cast_dtype)  # positive: f2 CL001 whole value cache
        bias = getattr(attn_metadata, "tree_attn_bias", None)
        if bias is not None:
            bias = bias.to(query.dtype)  # negative: the tree bias
        return self._unified_attention(query, key_cache, value_cache, attn_metadata, bias, output)


class TreeAttentionImpl(TritonAttentionImpl):
    """EAGLE tree verify: the tree kernel has no fp8 path, so caches are read in the query dtype."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.kv_cache_dtype.startswith("fp8"):
            self.cache_cast_dtype = torch.bfloat16
