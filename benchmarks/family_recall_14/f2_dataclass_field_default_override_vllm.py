"""A dataclass read policy whose subclass overrides the compute_dtype field default."""
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class KVReadPolicy:
    compute_dtype: Optional[torch.dtype] = None

    def read(self, kv_cache):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.compute_dtype is None:
            return key_cache, value_cache
        key_cache = key_cache.to(self.compute_dtype)  # positive: f2 CL001 UpcastPolicy sets the field default to fp16
        value_cache = value_cache.to(self.compute_dtype)  # positive: f2 CL001 same, value plane
        return key_cache, value_cache


@dataclass
class UpcastPolicy(KVReadPolicy):
    compute_dtype: Optional[torch.dtype] = torch.float16


class TritonFallbackImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="auto"):
        self.policy = UpcastPolicy() if kv_cache_dtype.startswith("fp8") else KVReadPolicy()
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = self.policy.read(kv_cache)
        k_scale = layer._k_scale.to(torch.float32)  # negative: a scale tensor
        q = query.to(torch.float16)  # negative: the step's queries
        return self._unified_attention(q, key_cache, value_cache, attn_metadata, k_scale, output)
