from dataclasses import dataclass

import torch


@dataclass(slots=True)
class AttentionState:
    layer_idx: int
    buffers: torch.Tensor
    block_ids: torch.Tensor


@dataclass(slots=True)
class FP8AttentionState(AttentionState):
    scale: float = 1.0

    def forward(self, q, k, v, metadata):
        up = self.buffers.to(q.dtype)  # positive: f2 CL001 slots dataclass subclass converts the inherited pool field
        ids = self.block_ids.to(torch.int64)  # negative: block ids
        picked = self.buffers[self.block_ids].float()  # negative: gathered
        return up, ids, picked


def make_state(kv_cache_manager, layer_idx, request_ids):
    return FP8AttentionState(
        layer_idx,
        kv_cache_manager.get_buffers(layer_idx),
        torch.as_tensor(kv_cache_manager.get_block_ids_per_seq(request_ids)),
    )
