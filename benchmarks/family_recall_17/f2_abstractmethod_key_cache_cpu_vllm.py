"""vLLM: an abstract impl base with @abstractmethod cache accessors; the CPU impl (no FP8
SDPA) converts in its accessors, the GPU impl returns views."""
from abc import ABC, abstractmethod

import torch


class PagedImplBase(ABC):
    @abstractmethod
    def key_cache(self, kv_cache: torch.Tensor, dtype) -> torch.Tensor: ...

    @abstractmethod
    def value_cache(self, kv_cache: torch.Tensor, dtype) -> torch.Tensor: ...

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache = self.key_cache(kv_cache, query.dtype)
        v_cache = self.value_cache(kv_cache, query.dtype)
        return self._attend(query, k_cache, v_cache, attn_metadata, output)


class GPUPagedImpl(PagedImplBase):
    def key_cache(self, kv_cache, dtype):
        return kv_cache[0]

    def value_cache(self, kv_cache, dtype):
        return kv_cache[1].to(dtype=kv_cache.dtype)  # negative: same dtype


class CPUPagedImpl(PagedImplBase):
    def key_cache(self, kv_cache, dtype):
        return kv_cache[0].to(dtype)  # positive: f2 CL001 whole key plane in the CPU override

    def value_cache(self, kv_cache, dtype):
        return kv_cache[1].to(dtype)  # positive: f2 CL001 whole value plane in the CPU override

    def _attend(self, query, k_cache, v_cache, attn_metadata, output):
        return output
