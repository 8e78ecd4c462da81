"""A per-tensor FP8 pool (defined here) with a dequantizing accessor."""
import torch

from sglang.srt.layers.quantization.fp8_kernel import batched_dequantize, dequantize_kv_tensor


class ScaledFP8Pool:
    def __init__(self, size, head_num, head_dim, layer_num, start_layer=0):
        self.start_layer = start_layer
        self.k_cache = [torch.zeros((size + 1, head_num, head_dim), dtype=torch.float8_e4m3fn, device="cuda") for _ in range(layer_num)]
        self.v_cache = [torch.zeros((size + 1, head_num, head_dim), dtype=torch.float8_e4m3fn, device="cuda") for _ in range(layer_num)]
        self.k_scale = torch.ones(layer_num, dtype=torch.float32, device="cuda")
        self.v_scale = torch.ones(layer_num, dtype=torch.float32, device="cuda")

    def fetch_keys(self, layer_id):
        return self.k_cache[layer_id - self.start_layer]

    def dequantized_keys(self, layer_id, dtype=torch.bfloat16):
        i = layer_id - self.start_layer
        return dequantize_kv_tensor(self.k_cache[i], self.k_scale[i], dtype)  # positive: f6 CL004 dequant inside an accessor

    def dequantized_values(self, layer_id):
        i = layer_id - self.start_layer
        return batched_dequantize(self.v_cache[i], self.v_scale[i])  # positive: f6 CL004 dequant inside an accessor

    def dequantized_rows(self, layer_id, loc, dtype=torch.bfloat16):
        i = layer_id - self.start_layer
        return dequantize_kv_tensor(self.k_cache[i][loc], self.k_scale[i], dtype)  # negative: dequant of gathered rows

    def scale_of(self, layer_id):
        return self.k_scale[layer_id - self.start_layer].to(torch.bfloat16)  # negative: per-layer scale, not KV


def reference_attention(pool: ScaledFP8Pool, q, layer_id):
    k = pool.fetch_keys(layer_id).to(q.dtype) * pool.scale_of(layer_id)  # positive: f6 CL001 file-defined accessor cast
    return q @ k.flatten(1).T
