import torch


class TritonImplBase:
    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype, **kwargs):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale

    def _cache_for_kernel(self, kv_cache, query):
        return kv_cache

    def _scale_for_kernel(self, layer, query):
        return layer._k_scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = self._cache_for_kernel(kv_cache, query)
        k_scale = self._scale_for_kernel(layer, query)
        key_cache, value_cache = cache.unbind(0)
        return self._unified_attention(query, key_cache, value_cache, k_scale, attn_metadata, output)
