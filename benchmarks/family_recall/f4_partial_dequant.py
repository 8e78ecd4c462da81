"""partial / getattr around dequant helpers applied to whole layers."""
import functools

import torch

import sglang.srt.layers.quantization.fp8_kernel as fp8_kernel
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.quantization.fp8_kernel import dequantize_kv_tensor


class PartialDequantBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.deq_bf16 = functools.partial(dequantize_kv_tensor, dtype=torch.bfloat16)
        self.batched = getattr(fp8_kernel, "batched_dequantize")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_deq = self.deq_bf16(pool.get_key_buffer(layer.layer_id), layer.k_scale)  # positive: f4 CL004 partial of dequant on whole layer
        v_deq = self.batched(pool.get_value_buffer(layer.layer_id), layer.v_scale)  # positive: f4 CL004 getattr of dequant on whole layer
        k_again = fp8_kernel.dequantize_kv_tensor(pool.get_key_buffer(layer.layer_id), layer.k_scale, q.dtype)  # positive: f4 CL004 module-qualified dequant
        return k_deq, v_deq, k_again

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        rows = self.deq_bf16(pool.get_key_buffer(layer.layer_id)[loc], layer.k_scale)  # negative: dequant of gathered rows
        new = self.deq_bf16(k, layer.k_scale)  # negative: batch tensor
        return rows, new
