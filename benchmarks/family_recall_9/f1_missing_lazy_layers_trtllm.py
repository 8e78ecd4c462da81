"""A dict subclass whose __missing__ fetches and memoizes the manager's per-layer buffer."""
import torch


class LazyLayerBuffers(dict):
    def __init__(self, manager):
        super().__init__()
        self.manager = manager

    def __missing__(self, layer_idx):
        buf = self[layer_idx] = self.manager.get_buffers(layer_idx)
        return buf


class LazyBlockIds(dict):
    def __init__(self, manager):
        super().__init__()
        self.manager = manager

    def __missing__(self, layer_idx):
        return self.manager.get_block_ids_per_seq(layer_idx)


class LazyAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.bufs = LazyLayerBuffers(kv_cache_manager)
        self.blocks = LazyBlockIds(kv_cache_manager)
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        whole = self.bufs[self.layer_idx].to(dtype=q.dtype)  # positive: f1 CL001 manager buffer memoized by __missing__
        v_half = self.bufs.get(self.layer_idx, self.bufs[self.layer_idx])[:, 1].half()  # positive: f1 CL001 V half of the memoized buffer
        blk = self.blocks[self.layer_idx].to(torch.int32)  # negative: block ids from another __missing__ dict
        return whole, v_half, blk
