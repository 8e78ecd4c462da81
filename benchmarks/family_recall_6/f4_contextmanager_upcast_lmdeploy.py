"""A contextlib.contextmanager yields a converted cache for the duration of a block."""
import contextlib

import torch


@contextlib.contextmanager
def upcast_scope(cache, dtype):
    tmp = cache.to(dtype)  # positive: f4 CL001 its only callers pass a layer's whole key or value cache
    try:
        yield tmp
    finally:
        del tmp


@contextlib.contextmanager
def staged_blocks(cache, block_offsets, dtype):
    yield cache[block_offsets].to(dtype)  # negative: gather-then-cast of the batch's blocks


class FallbackPagedAttention(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        with upcast_scope(k_cache, query.dtype) as kf, upcast_scope(v_cache, query.dtype) as vf:
            out = torch.einsum("bhd,nbhd->bhn", query, kf[:, :1]) + vf.sum()
        with staged_blocks(k_cache, attn_metadata.block_offsets, query.dtype) as kb:
            out = out + kb.sum()
        if k_scales_zeros is not None:
            out = out * k_scales_zeros.to(query.dtype).mean()  # negative: scales/zeros
        qf = query.to(torch.float32)  # negative: batch query
        return out
