from typing import NamedTuple

import torch


class KVPlanesTuple(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor

    def dense(self, dtype):
        return KVPlanesTuple(self.k.to(dtype), self.v.to(dtype))  # positive: f2 CL001 NamedTuple method, only built from whole halves

    def nbytes(self):
        return torch.tensor(self.k.numel() * self.k.element_size(), dtype=torch.int64)  # negative: size


class PlanesAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        planes = KVPlanesTuple(buf[:, 0], buf[:, 1])
        return planes.dense(q.dtype), planes.nbytes()
