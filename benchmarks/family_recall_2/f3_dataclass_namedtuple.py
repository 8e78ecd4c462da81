# Dataclass and NamedTuple records of caches.
from collections import namedtuple
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import torch

from sglang.srt.layers.quantization.kv_cache_quant import dequantize_kv_tensor


@dataclass
class LayerCache:
    key: torch.Tensor
    value: torch.Tensor
    scale: Optional[torch.Tensor] = None
    tag: str = field(default="full")


class PagedKV(NamedTuple):
    k_cache: torch.Tensor
    v_cache: torch.Tensor


KVRef = namedtuple("KVRef", ["k", "v"])


class RecordBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def _layer_cache(self, layer_id: int) -> LayerCache:
        return LayerCache(key=self.pool.get_key_buffer(layer_id), value=self.pool.get_value_buffer(layer_id))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lc = self._layer_cache(layer.layer_id)
        key32 = lc.key.float()  # positive: f3 CL001 dataclass field holds the whole key pool
        val16 = lc.value.to(self.dtype)  # positive: f3 CL001 dataclass field holds the whole value pool
        paged = PagedKV(*self.pool.get_kv_buffer(layer.layer_id))
        pv = paged.v_cache.bfloat16()  # positive: f3 CL001 NamedTuple fed by star-unpacking get_kv_buffer
        ref = KVRef(k=self.pool.get_key_buffer(layer.layer_id), v=None)
        rk = ref.k.to(q.dtype)  # positive: f3 CL001 namedtuple() record field
        batch_lc = LayerCache(key=k, value=v)
        bk = batch_lc.value.float()  # negative: record built over this step's k/v
        gathered = PagedKV(lc.key[forward_batch.out_cache_loc], lc.value[forward_batch.out_cache_loc])
        gk = gathered.k_cache.to(self.dtype)  # negative: record of gathered rows
        return key32, val16, pv, rk, bk, gk

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kk, vv = PagedKV(*self.pool.get_kv_buffer(layer.layer_id))
        vv_up = vv.to(torch.float32)  # positive: f3 CL001 NamedTuple unpacked back into names
        rec = LayerCache(key=self.pool.get_key_buffer(layer.layer_id), value=vv, scale=self.pool.k_scale_buffer[layer.layer_id])
        dq = dequantize_kv_tensor(rec.key, rec.scale, layer.layer_id)  # positive: f3 CL004 dataclass field carries the whole key pool into the dequant
        return vv_up, dq
