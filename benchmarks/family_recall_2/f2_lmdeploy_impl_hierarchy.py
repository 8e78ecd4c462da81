# lmdeploy-style attention impls: a base impl with helpers, a triton impl that subclasses it.
from typing import Optional

import torch

from lmdeploy.pytorch.backends.attention import AttentionImpl, AttentionMetadata


class FallbackAttentionImplBase(AttentionImpl[AttentionMetadata]):
    def __init__(self, num_heads: int, head_size: int, scale: float = None, num_kv_heads: int = None, v_head_size: int = None, **kwargs):
        super().__init__(num_heads, head_size, scale, num_kv_heads, v_head_size, **kwargs)
        self.work_dtype = torch.float16

    def _dense_cache(self, cache: torch.Tensor) -> torch.Tensor:
        # [num_blocks, block_size, heads, dim] -> [num_blocks * block_size, heads, dim]
        return cache.flatten(0, 1)

    def _upcast(self, cache: torch.Tensor) -> torch.Tensor:
        return cache.to(self.work_dtype)  # positive: f2 CL001 every caller passes a whole k_cache/v_cache


class TritonFallbackAttentionImpl(FallbackAttentionImplBase):
    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        k_cache: torch.Tensor,
        v_cache: torch.Tensor,
        attn_metadata: AttentionMetadata,
        k_scales_zeros: torch.Tensor = None,
        v_scales_zeros: torch.Tensor = None,
        learnable_sink: torch.Tensor = None,
        nsa_indices: torch.Tensor = None,
        inplace: bool = True,
    ) -> torch.Tensor:
        dense_k = self._dense_cache(k_cache).float()  # positive: f2 CL001 base helper flattens the whole k cache
        k_up = self._upcast(k_cache)
        v_up = super()._upcast(v_cache)
        q_c = query.to(k_cache.dtype)  # negative: query of this step
        key_c = key.to(self.work_dtype)  # negative: key of this step
        block_offsets = attn_metadata.block_offsets
        used = k_cache[block_offsets].to(self.work_dtype)  # negative: only this batch's blocks
        return q_c, key_c, dense_k, k_up, v_up, used


class Int8FallbackAttentionImpl(TritonFallbackAttentionImpl):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, learnable_sink=None, nsa_indices=None, inplace=True):
        deq = (k_cache.float() - k_scales_zeros[..., 1:]) * k_scales_zeros[..., :1]  # positive: f2 CL001 int8 k cache upcast whole before the affine dequant
        return super().forward(query, key, value, deq, v_cache, attn_metadata)
