"""lmdeploy-style attention impl hierarchy."""
import torch


class AttentionImplBase:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def _split_caches(self, k_cache: torch.Tensor, v_cache: torch.Tensor):
        return k_cache, v_cache


class DequantMixin:
    def _dequant(self, cache, like):
        return cache.to(like.dtype)  # note: called with caches and batch tensors, labelled at callers


class TritonAttentionImpl(DequantMixin, AttentionImplBase):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        kc, vc = self._split_caches(k_cache, v_cache)
        kc = self._dequant(kc, query)  # positive: f2 CL001 mixin helper given the whole k cache
        vc = self._dequant(vc, query)  # positive: f2 CL001 mixin helper given the whole v cache
        key = self._dequant(key, query)  # negative: batch key
        zs = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales
        return kc, vc, key, zs
