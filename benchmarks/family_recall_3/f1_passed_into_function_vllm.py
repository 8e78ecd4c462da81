"""vLLM-style impl that hands kv_cache to module-level helpers."""
from typing import Optional

import torch

from vllm.attention.backends.abstract import AttentionImpl


def _decode_reference(query: torch.Tensor, cache_view: torch.Tensor) -> torch.Tensor:
    # Only ever called with the layer's whole kv_cache.
    c = cache_view.to(query.dtype)  # positive: f1 CL001 every caller passes the whole kv_cache
    return torch.einsum("bhd,nhd->bhn", query, c[0])


def _cast_like(t: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    return t.to(ref.dtype)  # note: generic helper, labelled at the callers that pass the pool


class ReferenceImpl(AttentionImpl):
    def __init__(self, num_heads: int, head_size: int, scale: float, kv_cache_dtype: str = "fp8"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(
        self,
        layer,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        kv_cache: torch.Tensor,
        attn_metadata,
        output: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        if attn_metadata is None:
            return output
        out = _decode_reference(query, kv_cache)
        full = _cast_like(kv_cache, query)  # positive: f1 CL001 generic helper given the whole kv_cache
        key = _cast_like(key, query)  # negative: batch key
        value = _cast_like(value, query)  # negative: batch value
        return out + full.sum() * 0
