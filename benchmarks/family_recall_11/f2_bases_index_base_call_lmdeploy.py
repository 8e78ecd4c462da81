import torch


class CacheReaderBase:
    def _read_caches(self, k_cache, v_cache):
        return k_cache, v_cache


class Int8CacheReader(CacheReaderBase):
    def _read_caches(self, k_cache, v_cache):
        return k_cache[:0], v_cache[:0]


class DenseAttentionImpl(Int8CacheReader):
    """Skips its own override by calling the first base of its class directly."""

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        base = type(self).__bases__[0].__bases__[0]
        k_full, v_full = base._read_caches(self, k_cache, v_cache)
        k_empty, _ = Int8CacheReader._read_caches(self, k_cache, v_cache)
        k_f = k_full.to(torch.float16)  # positive: f2 CL001 whole K cache returned by the base found through __bases__
        v_f = v_full.to(torch.float16)  # positive: f2 CL001 whole V cache returned by the same base
        e = k_empty.to(torch.float16)  # negative: zero-row slice from the override
        sz = k_scales_zeros.to(torch.float16)  # negative: scales/zeros
        return k_f, v_f, e, sz
