"""A frozen dataclass whose __post_init__ fills its buffer with object.__setattr__."""
from dataclasses import dataclass, field

import torch


@dataclass(frozen=True)
class LayerSlot:
    manager: object
    layer_idx: int
    buf: torch.Tensor = field(init=False)
    rows: torch.Tensor = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "buf", self.manager.get_buffers(self.layer_idx))
        ids = self.manager.get_batch_cache_indices([0])
        object.__setattr__(self, "rows", self.manager.get_buffers(self.layer_idx)[ids])


class SlotAttention:
    def __init__(self, kv_cache_manager, num_layers):
        self.slots = [LayerSlot(kv_cache_manager, i) for i in range(num_layers)]

    def forward(self, q, k, v, metadata, layer_idx):
        slot = self.slots[layer_idx]
        whole = slot.buf.to(q.dtype)  # positive: f1 CL001 buffer set by object.__setattr__ in __post_init__
        part = slot.rows.to(q.dtype)  # negative: rows gathered at construction
        seq = metadata.seq_lens.to(torch.int32)  # negative: lengths
        return whole, part, seq
