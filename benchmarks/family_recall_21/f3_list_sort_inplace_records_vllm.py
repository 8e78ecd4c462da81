from dataclasses import dataclass
from operator import attrgetter

import torch


@dataclass
class LayerCacheRecord:
    layer_name: str
    layer_idx: int
    kv_cache: torch.Tensor
    k_scale: torch.Tensor


class OrderedLayerDumper:
    def __init__(self, forward_context_layers: dict):
        self.records = [
            LayerCacheRecord(name, int(name.split(".")[2]), layer.kv_cache[0], layer._k_scale)
            for name, layer in forward_context_layers.items()
        ]
        self.records.sort(key=attrgetter("layer_idx"))

    def execute_model(self, scheduler_output, block_ids):
        dense, scales, parts = [], [], []
        for rec in self.records:
            dense.append(rec.kv_cache.to(torch.float32))  # positive: f3 CL001 record field holding the whole layer
            scales.append(rec.k_scale.to(torch.float32))  # negative: scale field
            parts.append(rec.kv_cache[:, block_ids].to(torch.float32))  # negative: blocks first
        return dense, scales, parts
