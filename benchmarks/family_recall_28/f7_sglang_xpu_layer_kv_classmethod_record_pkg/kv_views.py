"""Per-layer views of a token-to-KV pool, built by a classmethod."""
from dataclasses import dataclass

import torch


@dataclass
class LayerKV:
    key: torch.Tensor
    value: torch.Tensor

    @classmethod
    def from_pool(cls, pool, layer_id):
        return cls(pool.get_key_buffer(layer_id), pool.get_value_buffer(layer_id))

    def dense(self, dtype):
        return self.key.to(dtype), self.value.to(dtype)  # positive: f7 CL001 both whole per-layer buffers; reached from XPUFallbackAttnBackend.forward_decode (one finding)

    def rows(self, loc, dtype):
        return self.key[loc].to(dtype), self.value[loc].to(dtype)  # negative: rows gathered first
