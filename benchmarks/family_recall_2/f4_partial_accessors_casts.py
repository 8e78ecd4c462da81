# functools.partial over accessors and over casts.
import functools
from functools import partial as bind

import torch

from sglang.srt.layers.quantization.kv_cache_quant import dequantize_kv_tensor


def _read(pool, which: str, layer_id: int) -> torch.Tensor:
    if which == "k":
        return pool.get_key_buffer(layer_id)
    return pool.get_value_buffer(layer_id)


class PartialBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.device = model_runner.device
        self.read_k = functools.partial(self.pool.get_key_buffer)
        self.read_v = bind(_read, self.pool, "v")
        self.to_bf16 = functools.partial(torch.Tensor.to, dtype=torch.bfloat16)
        self.to_dev = functools.partial(torch.Tensor.to, device=self.device)
        self.as_half = bind(torch.Tensor.half)
        self.deq = functools.partial(dequantize_kv_tensor, layer_id=0)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = self.read_k(layer.layer_id).to(q.dtype)  # positive: f4 CL001 partial of the pool's get_key_buffer
        v_all = self.read_v(layer.layer_id).float()  # positive: f4 CL001 partial of a module helper with the pool bound first
        k_bf16 = self.to_bf16(self.pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 partial(torch.Tensor.to, dtype=) applied to the whole pool
        v_half = self.as_half(self.pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 partial(torch.Tensor.half) applied to the whole pool
        k_moved = self.to_dev(self.pool.get_key_buffer(layer.layer_id))  # negative: partial of .to with a device keyword
        q_bf16 = self.to_bf16(q)  # negative: the same partial applied to q
        rows = self.read_k(layer.layer_id)[forward_batch.out_cache_loc].half()  # negative: gathered first
        return k_all, v_all, k_bf16, v_half, k_moved, q_bf16, rows

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        cast_to_q = functools.partial(torch.Tensor.to, dtype=q.dtype)
        vv = cast_to_q(_read(self.pool, "v", layer.layer_id))  # positive: f4 CL001 local partial cast of the whole value pool
        kk = cast_to_q(k)  # negative: local partial cast of the new k
        late = self.to_bf16(self.pool.get_key_buffer(layer.layer_id))[forward_batch.out_cache_loc]  # positive: f4 CL003 partial cast of the whole pool, then a gather
        deq_k = self.deq(self.pool.k_buffer[layer.layer_id], self.pool.k_scale_buffer[layer.layer_id])  # positive: f4 CL004 partial(dequantize_kv_tensor) of a whole arena
        return vv, kk, late, deq_k
