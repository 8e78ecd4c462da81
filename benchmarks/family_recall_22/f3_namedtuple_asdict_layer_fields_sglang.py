from typing import NamedTuple

import torch


class LayerKV(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    k_scale: torch.Tensor


def widen_layer(rec: LayerKV, dtype):
    out = {}
    for field, t in rec._asdict().items():
        if field.endswith("scale"):
            out[field] = t.to(dtype)  # negative: scale field
        else:
            out[field] = t.to(dtype)  # positive: f3 CL001 whole k and v buffers from the record fields
    return out


class FlashAttentionBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        rec = LayerKV(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), layer.k_scale)
        return widen_layer(rec, q.dtype)
