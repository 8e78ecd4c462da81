# Quantized pools that dequantize inside their accessors (CL004), and paged dequant look-alikes.
from typing import Optional

import torch

from sglang.kernels.ops.attention.dsa.dequant_k_cache import dequantize_k_cache_paged_dsa
from sglang.srt.layers.quantization.kvfp4_tensor import FP4MXBlock16KVQuantizeUtil
from sglang.srt.layers.quantization.kv_cache_quant import dequantize_kv_tensor as _deq


class QuantArenaPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int, device: str, start_layer: int = 0):
        self.start_layer = start_layer
        self.dtype = torch.bfloat16
        self.store_dtype = torch.uint8
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim // 2), dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.k_scale_buffer = [torch.zeros((size + page_size, head_num, head_dim // 16), dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]
        self.v_scale_buffer = [torch.ones((size + page_size, head_num, 1), dtype=torch.float32, device=device) for _ in range(layer_num)]

    def read_keys(self, layer_id: int) -> torch.Tensor:
        local = layer_id - self.start_layer
        packed = self.k_buffer[local].view(torch.uint8)
        return FP4MXBlock16KVQuantizeUtil.batched_dequantize(packed, self.k_scale_buffer[local])  # positive: f6 CL004 accessor dequantizes the whole FP4 arena

    def read_values(self, layer_id: int) -> torch.Tensor:
        local = layer_id - self.start_layer
        return _deq(self.v_buffer[local], self.v_scale_buffer[local], layer_id)  # positive: f6 CL004 aliased dequantize_kv_tensor of the whole value arena

    def read_values_plain(self, layer_id: int) -> torch.Tensor:
        return self.v_buffer[layer_id - self.start_layer].to(self.dtype)  # positive: f6 CL001 accessor upcasts the whole fp8 value arena

    def read_rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        local = layer_id - self.start_layer
        return FP4MXBlock16KVQuantizeUtil.batched_dequantize(self.k_buffer[local][loc], self.k_scale_buffer[local][loc])  # negative: dequantizes gathered rows only

    def raw_keys(self, layer_id: int) -> torch.Tensor:
        return self.k_buffer[layer_id - self.start_layer].view(torch.float8_e4m3fn)  # negative: reinterpret only


class QuantReadBackend:
    def __init__(self, pool: QuantArenaPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = self.pool.read_keys(layer.layer_id)
        keys_q = keys.to(q.dtype)  # positive: f6 CL001 the accessor's dequantized result is still every slot
        vals = self.pool.read_values(layer.layer_id)
        rows = self.pool.read_rows(layer.layer_id, forward_batch.out_cache_loc)
        return keys_q, vals, rows

    def forward_extend_dsa(self, q, layer, forward_batch, page_table_1_flattened):
        quant = self.pool.raw_keys(layer.layer_id)
        paged = dequantize_k_cache_paged_dsa(quant, page_table_1_flattened)  # negative: paged dequant reads only the page-table rows
        return paged
