"""f2: lmdeploy-style generic AttentionImpl[T]; an FP8 subclass upcasts caches and calls super().forward."""
from typing import Generic, TypeVar

import torch

T = TypeVar("T")


class AttentionMetadata:
    block_offsets: torch.Tensor
    q_start_loc: torch.Tensor
    kv_seqlens: torch.Tensor


class AttentionImpl(Generic[T]):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata: T, k_scales_zeros=None, v_scales_zeros=None):
        raise NotImplementedError


class TritonAttentionImpl(AttentionImpl[AttentionMetadata]):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        starts = attn_metadata.q_start_loc.long()  # negative: start locations
        return query, k_cache, v_cache, starts


class UpcastTritonImpl(TritonAttentionImpl):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_cache = k_cache.to(query.dtype)  # positive: f2 CL001 whole k_cache before super().forward
        v_cache = v_cache.to(query.dtype)  # positive: f2 CL001 whole v_cache
        zeros = k_scales_zeros.float() if k_scales_zeros is not None else None  # negative: scales/zeros
        return super().forward(query, key, value, k_cache, v_cache, attn_metadata, zeros, v_scales_zeros)
