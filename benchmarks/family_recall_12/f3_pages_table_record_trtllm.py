from typing import NamedTuple

import torch


class LayerPages(NamedTuple):
    pool: torch.Tensor
    first: int
    count: int


class PagedRecordAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        rec = LayerPages(buf, 0, buf.shape[0])
        all_pages = rec.pool[rec.first:rec.first + rec.count].to(self.dtype)  # positive: f3 CL001 record spans 0..shape[0]
        few = LayerPages(buf, 0, attn_metadata.num_pages)
        some = few.pool[few.first:few.count].to(self.dtype)  # negative: record spans the step's pages
        return all_pages, some
