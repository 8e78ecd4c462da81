"""CL004: an FP4 MLA pool whose getter runs a dequant kernel on the whole layer and converts its output."""
import torch

from sgl_kernel import scaled_fp4_dequant


class MLATokenToKVPoolNVFP4:
    def __init__(self, size, kv_cache_dim, layer_num, dtype, start_layer=0):
        self.dtype = dtype
        self.start_layer = start_layer
        self.kv_buffer = [torch.zeros(size + 1, 1, kv_cache_dim // 2, dtype=torch.uint8) for _ in range(layer_num)]
        self.kv_scale_buffer = [torch.ones(size + 1, 1, kv_cache_dim // 16, dtype=torch.uint8) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        i = layer_id - self.start_layer
        deq = scaled_fp4_dequant(self.kv_buffer[i], self.kv_scale_buffer[i].view(torch.float8_e4m3fn))
        return deq.to(self.dtype)  # positive: f6 CL004 the accessor converts the whole dequantized layer on every read

    def get_value_buffer(self, layer_id):
        i = layer_id - self.start_layer
        return scaled_fp4_dequant(self.kv_buffer[i], self.kv_scale_buffer[i].view(torch.float8_e4m3fn)).to(dtype=self.dtype)  # positive: f6 CL004 same for the value view

    def get_raw_kv_buffer(self, layer_id):
        i = layer_id - self.start_layer
        return self.kv_buffer[i], self.kv_scale_buffer[i].view(torch.float8_e4m3fn)  # negative: reinterpret of scales

    def get_mla_kv_buffer(self, layer, loc, dst_dtype):
        i = layer.layer_id - self.start_layer
        return scaled_fp4_dequant(self.kv_buffer[i][loc], self.kv_scale_buffer[i][loc].view(torch.float8_e4m3fn)).to(dst_dtype)  # negative: gathered at loc first
