"""vLLM-style CPU fallback impl: a reader dispatching on the cache's type (one tensor vs a (k, v) tuple)."""
import functools

import torch


class DenseKVReader:
    def __init__(self, dtype):
        self.dtype = dtype

    @functools.singledispatchmethod
    def dense(self, cache, block_ids=None):
        raise TypeError(type(cache))

    @dense.register
    def _(self, cache: torch.Tensor, block_ids=None):
        return cache.view(torch.float8_e4m3fn).to(self.dtype)  # positive: f4 CL001 the tensor overload gets the whole [2, blocks, ...] cache

    @dense.register
    def _(self, cache: tuple, block_ids=None):
        k, v = cache
        return k[block_ids].to(self.dtype), v[block_ids].to(self.dtype)  # negative: the tuple overload gathers blocks


class CPUFp8FallbackImpl:
    def __init__(self, num_heads, head_size, scale, model_dtype=torch.bfloat16):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.reader = DenseKVReader(model_dtype)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_decodes:
            dense = self.reader.dense(kv_cache)
            return self._sdpa(query, dense[0], dense[1], attn_metadata)
        key_cache, value_cache = kv_cache.unbind(0)
        k_pref, v_pref = self.reader.dense((key_cache, value_cache), attn_metadata.block_table[0])
        return self._sdpa(query, k_pref, v_pref, attn_metadata)

    def _sdpa(self, query, k, v, attn_metadata):
        return query
