"""f2: an ABC's forward calls a _prepare_cache hook; subclasses choose the dtype via an abstract classmethod."""
import abc

import torch


class CacheAttentionBase(abc.ABC):
    @classmethod
    @abc.abstractmethod
    def compute_dtype(cls) -> torch.dtype:
        ...

    @abc.abstractmethod
    def _prepare_cache(self, cache, attn_metadata):
        ...

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k = self._prepare_cache(k_cache, attn_metadata)
        v = self._prepare_cache(v_cache, attn_metadata)
        q = query.to(self.compute_dtype())  # negative: the batch's query
        return q, k, v


class UpcastImpl(CacheAttentionBase):
    @classmethod
    def compute_dtype(cls):
        return torch.bfloat16

    def _prepare_cache(self, cache, attn_metadata):
        return cache.to(self.compute_dtype())  # positive: f2 CL001 hook gets the whole k/v cache from forward


class PerBlockImpl(CacheAttentionBase):
    @classmethod
    def compute_dtype(cls):
        return torch.float16

    def _prepare_cache(self, cache, attn_metadata):
        return cache[attn_metadata.block_offsets.flatten()].to(self.compute_dtype())  # negative: blocks in use


class Float32Impl(UpcastImpl):
    @classmethod
    def compute_dtype(cls):
        return torch.float32

    def _prepare_cache(self, cache, attn_metadata):
        flat = cache.flatten(0, 1)
        return flat.type(self.compute_dtype())  # positive: f2 CL001 grandchild hook, whole cache flattened
