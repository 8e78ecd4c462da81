"""lmdeploy-style int8 fallback: dequant helpers are passed as functions to a profiling wrapper."""
import torch
from torch.profiler import record_function


def _profiled(name, fn, *args, **kwargs):
    with record_function(name):
        return fn(*args, **kwargs)


def _dequant_whole(cache, scales_zeros, dtype):
    return (cache.to(dtype) - scales_zeros[..., 1:]) * scales_zeros[..., :1]  # positive: f4 CL001 helper reached through _profiled with whole caches


def _dequant_blocks(cache, scales_zeros, block_offsets, dtype):
    sel = block_offsets.flatten()
    return (cache[sel].to(dtype) - scales_zeros[sel][..., 1:]) * scales_zeros[sel][..., :1]  # negative: the batch's blocks


class NoInt8KernelAttentionImpl:
    def __init__(self, num_heads, head_dim):
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if attn_metadata.is_decoding:
            k = _profiled("kv_dequant_k", _dequant_whole, k_cache, k_scales_zeros, query.dtype)
            v = _profiled("kv_dequant_v", _dequant_whole, v_cache, v_scales_zeros, dtype=query.dtype)
            return self._decode(query, k, v, attn_metadata)
        k = _profiled("kv_prefix", _dequant_blocks, k_cache, k_scales_zeros, attn_metadata.block_offsets, query.dtype)
        return self._decode(query, k, None, attn_metadata)

    def _decode(self, query, k, v, attn_metadata):
        return query
