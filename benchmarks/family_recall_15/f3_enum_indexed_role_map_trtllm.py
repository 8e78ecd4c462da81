import enum
from typing import Generic, TypeVar

import torch

T = TypeVar("T")


class PoolRole(enum.Enum):
    TARGET = "target"
    DRAFT = "draft"
    SCALES = "scales"


class RoleMap(Generic[T]):
    def __init__(self, **items: T):
        self._items = {PoolRole(k): v for k, v in items.items()}

    def __getitem__(self, role: PoolRole) -> T:
        return self._items[role]


class Eagle3OneModelWorker:
    def __init__(self, target_mgr, draft_mgr, scale_pool):
        self.pools = RoleMap(target=target_mgr, draft=draft_mgr, scales=scale_pool)

    def forward(self, input_ids, position_ids, attn_metadata, spec_metadata):
        draft = self.pools[PoolRole.DRAFT]
        kv = draft.get_buffers(spec_metadata.draft_layer).to(torch.bfloat16)  # positive: f3 CL001 draft manager from an Enum-indexed generic container
        sc = self.pools[PoolRole.SCALES][spec_metadata.draft_layer].float()  # negative: scale buffer, not KV data
        tgt_blocks = attn_metadata.kv_cache_block_offsets[0]
        ctx = self.pools[PoolRole.TARGET].get_buffers(0)[tgt_blocks].to(torch.bfloat16)  # negative: block gather
        return kv * sc, ctx
