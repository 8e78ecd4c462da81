"""functools.partial of pool accessors and of casts."""
import functools
from functools import partial

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

to_bf16 = partial(torch.Tensor.to, dtype=torch.bfloat16)
to_gpu = partial(torch.Tensor.to, device="cuda")


class PartialBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.read_k = functools.partial(pool.get_key_buffer)
        self.read_layer0_v = partial(pool.get_value_buffer, 0)
        self.upcast = partial(torch.Tensor.float)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.read_k(layer.layer_id).to(q.dtype)  # positive: f4 CL001 partial of accessor
        v0 = self.read_layer0_v().half()  # positive: f4 CL001 partial with bound layer id
        k_bf = to_bf16(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 partial of Tensor.to with dtype
        v_f = self.upcast(forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 partial of Tensor.float
        return k_cache, v0, k_bf, v_f

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        moved = to_gpu(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id))  # negative: partial of a device move
        rows = to_bf16(self.read_k(layer.layer_id)[forward_batch.out_cache_loc])  # negative: gather before the partial cast
        return moved, rows
