import torch


class _PagedCacheAdapter:
    """Wraps the v1 [2, num_blocks, block_size, kv_heads, head_size] cache for the IPEX kernels."""

    def __init__(self, kv_cache):
        self._kv = kv_cache

    def key_cache(self):
        return self._kv[0]

    def value_cache(self):
        return self._kv[1]

    def block(self, block_id):
        return self._kv[:, block_id]


class XPUPagedAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = _PagedCacheAdapter(kv_cache)
        if self.kv_cache_dtype.startswith("fp8"):
            # IPEX chunked_prefill has no FP8-KV path on XPU.
            key_cache = cache.key_cache().to(query.dtype)  # positive: f1 CL001 whole key plane through an adapter object, per forward
            value_cache = cache.value_cache().to(query.device)  # negative: device move, no dtype change
            first = cache.block(attn_metadata.block_table[0, 0]).float()  # negative: one block selected before the cast
        else:
            key_cache, value_cache, first = cache.key_cache(), cache.value_cache(), None
        return key_cache, value_cache, first
