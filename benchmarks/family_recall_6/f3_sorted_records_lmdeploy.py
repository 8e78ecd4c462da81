"""Per-layer cache records sorted and picked with key functions (sorted/min/max with attrgetter)."""
from dataclasses import dataclass
from operator import attrgetter

import torch


@dataclass(frozen=True)
class CacheRecord:
    layer_idx: int
    key: torch.Tensor
    value: torch.Tensor
    num_blocks_used: int


class RecordAttention(torch.nn.Module):
    def __init__(self, cache_engine, num_layers):
        super().__init__()
        self.records = [
            CacheRecord(i, *cache_engine.gpu_cache[i], 0) for i in range(num_layers)
        ]

    def forward(self, query, attn_metadata):
        ordered = sorted(self.records, key=attrgetter("layer_idx"), reverse=True)
        top = ordered[0].key.to(query.dtype)  # positive: f3 CL001 whole key cache of the sorted first record
        lo = min(self.records, key=lambda r: r.layer_idx)
        vv = lo.value.half()  # positive: f3 CL001 whole value cache of the min record
        busy = max(self.records, key=attrgetter("num_blocks_used"))
        used = busy.key[: busy.num_blocks_used].to(query.dtype)  # negative: the blocks in use
        own = ordered[-1].key.to(ordered[-1].key.dtype)  # negative: own dtype
        return top, vv, used
