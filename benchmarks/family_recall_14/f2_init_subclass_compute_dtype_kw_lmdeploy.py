"""Impl classes take compute_dtype and backend as class keywords via __init_subclass__ (unusual)."""
import torch


class AttentionImplBase:
    compute_dtype = None
    registry = {}

    def __init_subclass__(cls, compute_dtype=None, backend=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if compute_dtype is not None:
            cls.compute_dtype = compute_dtype
        if backend is not None:
            AttentionImplBase.registry[backend] = cls

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.compute_dtype is not None:
            k_cache = k_cache.to(self.compute_dtype)  # positive: f2 CL001 CambFallbackImpl declares compute_dtype=float16
            v_cache = v_cache.to(self.compute_dtype)  # positive: f2 CL001 same, value cache
        return self._paged_attention(query, k_cache, v_cache, attn_metadata, k_scales_zeros)


class TritonImpl(AttentionImplBase, backend="cuda"):
    def _paged_attention(self, query, k_cache, v_cache, attn_metadata, k_scales_zeros):
        return self._triton_decode(query, k_cache, v_cache, attn_metadata.block_offsets)


class CambFallbackImpl(AttentionImplBase, compute_dtype=torch.float16, backend="camb"):
    def _paged_attention(self, query, k_cache, v_cache, attn_metadata, k_scales_zeros):
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.float()  # negative: scales/zeros
        q = query.to(self.compute_dtype)  # negative: the step's queries
        return self._camb_decode(q, k_cache, v_cache, attn_metadata.block_offsets, k_scales_zeros)
