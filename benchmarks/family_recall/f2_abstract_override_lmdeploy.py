"""lmdeploy-style abstract builder with subclasses supplying cache accessors."""
from abc import ABC, abstractmethod

import torch


class CacheBackedImpl(ABC):
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    @abstractmethod
    def select_cache(self, k_cache, v_cache):
        ...

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        primary = self.select_cache(k_cache, v_cache)
        dense = primary.to(query.dtype)  # positive: f2 CL001 subclass-supplied cache selector
        return self._attn(query, dense, attn_metadata)

    def _attn(self, q, c, md):
        return torch.empty_like(q)


class KeyFirstImpl(CacheBackedImpl):
    def select_cache(self, k_cache, v_cache):
        return k_cache


class ValueFirstImpl(CacheBackedImpl):
    def select_cache(self, k_cache, v_cache):
        return v_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        v_live = v_cache[attn_metadata.block_offsets].to(query.dtype)  # negative: block gather first
        k_full = k_cache.to(query.dtype)  # positive: f2 CL001 whole k_cache cast in override
        return self._attn(query, k_full, attn_metadata), v_live
