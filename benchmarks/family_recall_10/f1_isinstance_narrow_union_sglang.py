"""A source typed as a Union, narrowed with isinstance before the read."""
from typing import Union

import torch


class LatentPool:
    def __init__(self, size, layers, dtype):
        self.buffers = [torch.empty(size, 1, 576, dtype=dtype) for _ in range(layers)]


class StagedRows:
    def __init__(self):
        self.buffers = [torch.empty(64, 1, 576, dtype=torch.float8_e4m3fn)]


class NarrowingBackend:
    def __init__(self, source: Union[LatentPool, StagedRows]):
        self.source = source

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = self.source
        if isinstance(src, StagedRows):
            return src.buffers[0].to(q.dtype)  # negative: 64 staged rows, not the pool
        lat = src.buffers[layer.layer_id]
        return lat.to(q.dtype)  # positive: f1 CL001 narrowed to LatentPool, whole layer
