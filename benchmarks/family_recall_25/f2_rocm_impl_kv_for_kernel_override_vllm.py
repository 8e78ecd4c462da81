import torch


class TritonAttentionImpl:
    def _kv_for_kernel(self, kv_cache):
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata is None:
            return output
        kv = self._kv_for_kernel(kv_cache)
        key_cache, value_cache = kv.unbind(0)
        query = query.to(key_cache.dtype) if key_cache.dtype != torch.uint8 else query  # negative: query
        return key_cache, value_cache, query


class RocmMI250TritonAttentionImpl(TritonAttentionImpl):
    """gfx90a has no FP8 unified-attention path: read the cache in the model dtype."""

    def __init__(self, dtype=torch.float16):
        self.dtype = dtype

    def _kv_for_kernel(self, kv_cache):
        if kv_cache.dtype == self.dtype:
            return kv_cache
        return kv_cache.to(self.dtype)  # positive: f2 CL001 subclass hook widens the whole layer cache, called from forward

    def block_scales(self, layer):
        return layer._k_scale.to(self.dtype)  # negative: scale
