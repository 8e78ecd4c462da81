from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from .pools import ChunkedKVPool


class TypedBackend:
    def __init__(self, pool: ChunkedKVPool):
        self.pool = pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        kl, vl = self.pool.layer(layer.layer_id)
        kd = kl.to(q.dtype)  # positive: f7 CL001 whole key plane of the runner's pool
        vd = self.pool.layer(layer.layer_id)[1].half()  # positive: f7 CL001 whole value plane
        kr, _ = self.pool.recent(layer.layer_id, forward_batch.out_cache_loc)
        krd = kr.to(q.dtype)  # negative: rows of this step
        s = self.pool.k_scale[layer.layer_id].to(q.dtype)  # negative: scale
        return kd, vd, krd, s
