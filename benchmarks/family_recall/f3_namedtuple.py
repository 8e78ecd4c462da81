"""NamedTuple bundles of KV buffers handed between helper and backend."""
from typing import NamedTuple

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KVView(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    layer_id: int


class ShapeInfo(NamedTuple):
    num_tokens: int
    head_num: int
    head_dim: int


def view_of(pool, layer_id) -> KVView:
    return KVView(pool.get_key_buffer(layer_id), pool.get_value_buffer(layer_id), layer_id)


class NamedTupleBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = view_of(forward_batch.token_to_kv_pool, layer.layer_id)
        k16 = kv.k.to(torch.float16)  # positive: f3 CL001 NamedTuple field by name
        v16 = kv[1].to(torch.float16)  # positive: f3 CL001 NamedTuple field by position
        kk, vv, _ = kv
        v32 = vv.float()  # positive: f3 CL001 NamedTuple unpacked
        return k16, v16, v32, kk

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = view_of(forward_batch.token_to_kv_pool, layer.layer_id)
        info = ShapeInfo(kv.k.shape[0], kv.k.shape[1], kv.k.shape[2])  # negative: only shapes
        live = kv.v[forward_batch.out_cache_loc].to(q.dtype)  # negative: gather first
        return info, live
