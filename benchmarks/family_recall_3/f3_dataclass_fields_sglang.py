from dataclasses import dataclass, field
from typing import List

import torch


@dataclass
class LayerKV:
    key: torch.Tensor
    value: torch.Tensor
    scale: float = 1.0


@dataclass
class KVArena:
    layers: List[LayerKV] = field(default_factory=list)

    @classmethod
    def from_pool(cls, pool):
        return cls([LayerKV(pool.k_buffer[i], pool.v_buffer[i]) for i in range(pool.layer_num)])


class DataclassBackend:
    def __init__(self, model_runner):
        self.arena = KVArena.from_pool(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        entry = self.arena.layers[layer.layer_id]
        kk = entry.key.to(q.dtype)  # positive: f3 CL001 dataclass field holding the whole key buffer
        vv = entry.value.to(dtype=torch.bfloat16)  # positive: f3 CL001 dataclass field holding the whole value buffer
        s = torch.tensor(entry.scale).to(q.dtype)  # negative: scalar
        return kk * s, vv
