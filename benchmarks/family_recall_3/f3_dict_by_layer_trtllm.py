import torch


class LayerBufferTable:
    def __init__(self, kv_cache_manager, layer_ids):
        self.buffers = {idx: kv_cache_manager.get_buffers(idx) for idx in layer_ids}


class TableAttention:
    def __init__(self, layer_idx, table: LayerBufferTable):
        self.layer_idx = layer_idx
        self.table = table

    def forward(self, q, k, v, metadata, **kwargs):
        buf = self.table.buffers[self.layer_idx]
        buf = buf.to(q.dtype)  # positive: f3 CL001 dict of get_buffers per layer
        k_plane = self.table.buffers.get(self.layer_idx)[:, 0].bfloat16()  # positive: f3 CL001 dict.get of a per-layer buffer, whole k plane
        return buf, k_plane
