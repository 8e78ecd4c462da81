# TensorRT-LLM: per-layer KV views recorded in a NamedTuple with a helper method.
from typing import NamedTuple

import torch


class LayerKV(NamedTuple):
    key: torch.Tensor
    value: torch.Tensor
    block_offsets: torch.Tensor

    def active_keys(self):
        return self.key[self.block_offsets]


class ManualAttention:
    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        kv = LayerKV(buf[:, 0], buf[:, 1], metadata.kv_cache_block_offsets[0])
        keys = kv.active_keys().to(q.dtype)  # negative: NamedTuple method gathers the live blocks
        values = kv.value.to(q.dtype)  # positive: f3 CL001 whole value plane read from the record field
        return self._attend(q, keys, values[kv.block_offsets], metadata)
