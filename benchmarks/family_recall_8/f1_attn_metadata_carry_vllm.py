from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class CarryMetadata:
    seq_lens: torch.Tensor
    slot_mapping: torch.Tensor
    cache_ref: Optional[torch.Tensor] = None


class CarryBuilder:
    def build(self, common, kv_cache):
        md = CarryMetadata(common.seq_lens, common.slot_mapping)
        md.cache_ref = kv_cache
        return md


class CarryImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        ref = attn_metadata.cache_ref
        if ref is None:
            return output
        up = ref.to(dtype=query.dtype)  # positive: f1 CL001 kv_cache carried on attn_metadata
        slots = attn_metadata.slot_mapping.long()  # negative: slot mapping
        picked = ref[slots].to(query.dtype)  # negative: gathered slots
        return up, picked
