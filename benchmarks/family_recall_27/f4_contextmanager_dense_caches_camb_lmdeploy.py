import contextlib

import torch
from dlinfer import ops as ext_ops


@contextlib.contextmanager
def dense_caches(k_cache, v_cache, dtype):
    yield k_cache.to(dtype), v_cache.to(dtype)  # positive: f4 CL001 both whole caches yielded from a context manager (one finding)


@contextlib.contextmanager
def block_caches(k_cache, v_cache, block_offsets, dtype):
    yield k_cache[block_offsets].to(dtype), v_cache[block_offsets].to(dtype)  # negative: blocks gathered first


class CambPagedAttentionImpl:
    """Cambricon MLU: the paged decode operator takes fp16/bf16 caches only."""

    def __init__(self, num_heads, head_size, scale, quant_policy):
        self.quant_policy = quant_policy
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.to(query.dtype)  # negative: scales and zeros
        if self.quant_policy == 8 and attn_metadata.is_decoding:
            with dense_caches(k_cache, v_cache, query.dtype) as (k, v):
                return ext_ops.paged_decode_attention(query, k, v, attn_metadata.block_offsets, self.scale)
        with block_caches(k_cache, v_cache, attn_metadata.block_offsets, query.dtype) as (k, v):
            return ext_ops.paged_prefill_attention(query, k, v, attn_metadata.q_start_loc, self.scale)
