import torch
from torch import nn


class CacheSlot(nn.Module):
    def __init__(self, blocks, block_size, heads, dim, dtype):
        super().__init__()
        self.register_buffer("k", torch.empty(blocks, block_size, heads, dim, dtype=dtype), persistent=False)
        self.register_buffer("v", torch.empty(blocks, block_size, heads, dim, dtype=dtype), persistent=False)


class SlotCacheEngine(nn.Module):
    def __init__(self, num_layers, blocks, block_size, heads, dim):
        super().__init__()
        self.slots = nn.ModuleList(
            CacheSlot(blocks, block_size, heads, dim, torch.int8) for _ in range(num_layers)
        )

    def forward(self, layer_idx, query, attn_metadata):
        slot = self.slots[layer_idx]
        kd = slot.k.to(query.dtype)  # positive: f3 CL001 buffer of a ModuleList entry
        vd = self.slots[-1].v.half()  # positive: f3 CL001 last slot's whole V buffer
        firsts = [s.k.float() for s in self.slots]  # positive: f3 CL001 every layer's K in a comprehension over the ModuleList
        bo = attn_metadata.block_offsets.to(torch.int64)  # negative: block offsets
        return kd, vd, firsts, bo
