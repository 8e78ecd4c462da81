"""Per-layer NamedTuple records of the pool, unpacked in a for loop by init_forward_metadata."""
from typing import NamedTuple

import torch


class LayerSlot(NamedTuple):
    layer_id: int
    k: torch.Tensor
    v: torch.Tensor


class ShadowedDecodeBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.slots = [
            LayerSlot(i, pool.get_key_buffer(i), pool.get_value_buffer(i))
            for i in range(pool.start_layer, pool.end_layer)
        ]
        self.shadow = {}
        self.warm = self.slots[0].k.to(torch.bfloat16)  # negative: one-time setup in __init__

    def init_forward_metadata(self, forward_batch):
        if not forward_batch.forward_mode.is_decode_or_idle():
            for layer_id, k, _ in self.slots:
                self.shadow[layer_id] = k[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: this step's rows
            return
        for layer_id, k, v in self.slots:
            self.shadow[layer_id] = (
                k.to(torch.bfloat16),  # positive: f3 CL001 whole key layer from the NamedTuple, every decode step
                v.to(torch.bfloat16),  # positive: f3 CL001 whole value layer from the NamedTuple
            )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_bf16, v_bf16 = self.shadow[layer.layer_id]
        return self._decode(q, k_bf16, v_bf16, forward_batch)
