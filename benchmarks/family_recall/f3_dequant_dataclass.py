"""Dataclass bundles of a quantized layer cache and its scales fed to dequant helpers."""
from dataclasses import dataclass

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.quantization.fp8_kernel import batched_dequantize, dequantize_kv_tensor


@dataclass
class QuantLayer:
    data: torch.Tensor
    scale: torch.Tensor


class DequantBackend(AttentionBackend):
    def _quant_layer(self, forward_batch, layer) -> QuantLayer:
        return QuantLayer(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id), layer.k_scale)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ql = self._quant_layer(forward_batch, layer)
        k_deq = dequantize_kv_tensor(ql.data, ql.scale, q.dtype)  # positive: f3 CL004 dequant of a dataclass-carried layer
        pool = forward_batch.token_to_kv_pool
        both = {"k": pool.get_key_buffer(layer.layer_id), "v": pool.get_value_buffer(layer.layer_id)}
        v_deq = batched_dequantize(both["v"], layer.v_scale)  # positive: f3 CL004 dequant of a dict-held layer
        return k_deq, v_deq

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ql = self._quant_layer(forward_batch, layer)
        rows = dequantize_kv_tensor(ql.data[forward_batch.out_cache_loc], ql.scale, q.dtype)  # negative: dequant of gathered rows
        return rows
