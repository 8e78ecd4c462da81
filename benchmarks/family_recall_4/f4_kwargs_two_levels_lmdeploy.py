"""The caches travel through **kwargs two levels down before the cast."""
import torch


class KwargsForwardAttention:
    def __init__(self, num_heads, head_size, scale, block_size):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.block_size = block_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, **kwargs):
        return self._outer(
            query,
            k_cache=k_cache,
            v_cache=v_cache,
            dtype=query.dtype,
            scales=k_scales_zeros,
            metadata=attn_metadata,
        )

    def _outer(self, query, **kwargs):
        kwargs.setdefault("page_size", self.block_size)
        return self._inner(query, **kwargs)

    def _inner(self, query, k_cache, v_cache, dtype, scales, metadata, page_size):
        kc = k_cache.to(dtype)  # positive: f4 CL001 the only call chain forwards the whole k cache through **kwargs twice
        vc = v_cache.to(dtype=dtype)  # positive: f4 CL001 same chain, whole v cache
        sc = scales.to(dtype) if scales is not None else None  # negative: scales and zeros
        q = query.to(dtype)  # negative: batch query
        offs = metadata.block_offsets.to(torch.int64)  # negative: block table
        return self._decode(q, kc, vc, sc, offs, page_size)

    def _decode(self, q, kc, vc, sc, offs, page_size):
        return torch.empty_like(q)


def fill_cache_kwargs(**kwargs):
    key = kwargs["key"].to(kwargs["k_cache"].dtype)  # negative: batch key to the cache dtype
    value = kwargs["value"].to(kwargs["v_cache"].dtype)  # negative: batch value to the cache dtype
    return key, value
