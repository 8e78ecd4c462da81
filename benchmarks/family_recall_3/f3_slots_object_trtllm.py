import torch


class LayerSlots:
    __slots__ = ("kv", "block_ids", "scale")

    def __init__(self, kv, block_ids, scale):
        self.kv = kv
        self.block_ids = block_ids
        self.scale = scale


class SlotsAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        slots = [LayerSlots(mgr.get_buffers(i), metadata.block_ids, 1.0) for i in range(mgr.num_layers)]
        mine = slots[self.layer_idx]
        kv = mine.kv.to(q.dtype)  # positive: f3 CL001 per-layer buffer held in a list of slot objects
        used = mine.kv[mine.block_ids].to(q.dtype)  # negative: gathered blocks
        return kv, used
