"""A recursive helper converting the nested (layer, (k, v)) structure of gpu_cache."""
import torch


def _deep_to(x, dtype):
    if isinstance(x, (list, tuple)):
        return type(x)(_deep_to(e, dtype) for e in x)
    return x.to(dtype)  # positive: f4 CL001 recursion bottoms out on whole caches (only gpu_cache is passed)


def _deep_long(x):
    if isinstance(x, dict):
        return {k: _deep_long(e) for k, e in x.items()}
    return x.long()  # negative: recursion over per-step block offsets and lengths


class RecursiveAttention:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        dense = _deep_to(self.cache_engine.gpu_cache, query.dtype)
        meta = _deep_long({"offs": attn_metadata.block_offsets, "lens": attn_metadata.q_seqlens})
        return dense, meta
