"""lmdeploy-style paged attention where each layer carries a cache record."""
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class LayerCacheRecord:
    k_cache: torch.Tensor
    v_cache: torch.Tensor
    block_offsets: torch.Tensor


class RecordAttention(nn.Module):
    def __init__(self, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx

    def bind(self, past_key_values, block_offsets):
        k_caches, v_caches = past_key_values
        self.record = LayerCacheRecord(
            k_cache=k_caches[self.layer_idx],
            v_cache=v_caches[self.layer_idx],
            block_offsets=block_offsets,
        )

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attn_metadata):
        rec = self.record
        k_cache = rec.k_cache.to(query.dtype)  # positive: f1 CL001 record field is the whole per-layer k cache
        v_cache = rec.v_cache.type(query.dtype)  # positive: f1 CL001 .type(dtype) of whole v cache
        offsets = rec.block_offsets.to(torch.int32)  # negative: block table is small
        key = key.to(rec.k_cache.dtype)  # negative: batch key cast to the cache dtype
        return self._paged(query, k_cache, v_cache, offsets, key)

    def _paged(self, q, kc, vc, offs, key):
        return q
