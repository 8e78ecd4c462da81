"""Base accessors called as getattr(super(), "fetch") and getattr(super(Cls, self), "fetch")."""
import torch


class BufferSource:
    def __init__(self, manager):
        self.manager = manager

    def fetch(self, layer_idx):
        return self.manager.get_buffers(layer_idx)

    def fetch_rows(self, layer_idx, block_ids):
        return self.manager.get_buffers(layer_idx)[block_ids]


class HeadMajorSource(BufferSource):
    def fetch(self, layer_idx):
        base = getattr(super(), "fetch")(layer_idx)
        return base.transpose(2, 3)


class SourceAttention(HeadMajorSource):
    def __init__(self, manager, layer_idx):
        super().__init__(manager)
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        hm = self.fetch(self.layer_idx).to(q.dtype)  # positive: f2 CL001 transposed whole buffer from the override
        raw = getattr(super(HeadMajorSource, self), "fetch")(self.layer_idx)
        raw_h = raw.half()  # positive: f2 CL001 base fetch reached with getattr on an explicit super()
        rows = self.fetch_rows(self.layer_idx, metadata.block_ids).to(q.dtype)  # negative: gathered blocks
        return hm, raw_h, rows
