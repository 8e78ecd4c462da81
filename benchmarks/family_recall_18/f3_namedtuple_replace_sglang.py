"""sglang-style torch-native decode over a NamedTuple layer record; fields swapped with _replace."""
from typing import NamedTuple

import torch


class LayerKV(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    layer_id: int


class TorchNativeDecode:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rec = LayerKV(*self.token_to_kv_pool.get_kv_buffer(layer.layer_id), layer.layer_id)
        rec = rec._replace(k=rec.k.to(q.dtype))  # positive: f3 CL001 the record's whole key layer
        rec = rec._replace(v=rec.v.to(q.dtype))  # positive: f3 CL001 the record's whole value layer
        return self._sdpa(q, rec, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rec = LayerKV(*self.token_to_kv_pool.get_kv_buffer(layer.layer_id), layer.layer_id)
        loc = forward_batch.out_cache_loc
        rec = rec._replace(k=rec.k[loc].to(q.dtype), v=rec.v[loc].to(q.dtype))  # negative: rows of this batch
        return self._sdpa(q, rec, forward_batch)

    def _sdpa(self, q, rec, forward_batch):
        return q
