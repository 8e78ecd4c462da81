from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class LayerKV:
    k: torch.Tensor
    v: torch.Tensor
    k_scale: Optional[torch.Tensor] = None


class DualChunkFallbackBackend:
    def _layer_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return LayerKV(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), layer.k_scale)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rec = self._layer_kv(layer, forward_batch)
        kk = rec.k.to(q.dtype)  # positive: f3 CL001 record field holds the whole key buffer
        vv = rec.v.to(q.dtype)  # positive: f3 CL001 record field holds the whole value buffer
        ks = rec.k_scale.to(q.dtype) if rec.k_scale is not None else None  # negative: scale field of the same record
        return self._dual_chunk(q, kk, vv, ks)

    def _dual_chunk(self, q, k, v, s):
        return q
