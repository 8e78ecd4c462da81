"""NamedTuple records whose _replace swaps one field for gathered rows and leaves the other whole."""
from typing import NamedTuple, Optional

import torch


class LayerKV(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    loc: Optional[torch.Tensor]


class ReplaceBackend:
    def __init__(self, model_runner):
        self.kernel = model_runner.attn_kernels.extend
        self.head_dim = model_runner.model_config.head_dim

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        rec = LayerKV(*pool.get_kv_buffer(layer.layer_id), forward_batch.out_cache_loc)
        rec = rec._replace(k=rec.k[rec.loc])
        kk = rec.k.to(q.dtype)  # negative: _replace put the gathered rows in k
        vv = rec.v.to(q.dtype)  # positive: f3 CL001 v untouched by _replace, whole value pool
        ll = rec.loc.to(torch.int64)  # negative: location tensor
        return self.kernel(q, kk, vv, ll)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        rec = LayerKV(k=pool.get_key_buffer(layer.layer_id), v=pool.get_value_buffer(layer.layer_id), loc=None)
        rec2 = rec._replace(loc=forward_batch.out_cache_loc)
        kb = rec2.k.bfloat16()  # positive: f3 CL001 _replace of loc keeps the whole key pool
        vb = rec2._asdict()["v"].bfloat16()  # positive: f3 CL001 _asdict() entry is the whole value pool
        return kb, vb


def pack_writes(layer, forward_batch, k, v):
    rec = LayerKV(k, v, forward_batch.out_cache_loc)
    rec = rec._replace(k=rec.k.to(torch.bfloat16), v=rec.v.to(torch.bfloat16))  # negative: batch k and v in the record
    forward_batch.token_to_kv_pool.set_kv_buffer(layer, rec.loc, rec.k, rec.v)
    return rec.loc
