from functools import singledispatchmethod

import torch


class FallbackCacheReader:
    """Pure-torch fallback used when the paged kernel cannot read the cache dtype."""

    def __init__(self, dtype=torch.float16):
        self.dtype = dtype

    @singledispatchmethod
    def read(self, cache):
        raise TypeError(type(cache))

    @read.register
    def _(self, cache: torch.Tensor):
        return cache.to(self.dtype)  # positive: f4 CL001 whole layer cache reached through singledispatch on tensor

    @read.register
    def _(self, cache: tuple):
        return tuple(self.read(c) for c in cache)


class FallbackAttentionImpl:
    def __init__(self):
        self.reader = FallbackCacheReader()

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_dense, v_dense = self.reader.read((k_cache, v_cache))
        rows = self.reader.read(k_cache[attn_metadata.block_offsets[:, 0]])  # negative: first blocks gathered before the read
        q = self.reader.read(query)  # negative: query through the same reader
        return k_dense, v_dense, rows, q
