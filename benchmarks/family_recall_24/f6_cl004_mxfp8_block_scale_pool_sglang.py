# sglang memory pool variant storing MXFP8 keys with per-32-channel block scales; the
# getters dequantize inside the pool.
import torch

from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool


class MHATokenToKVPoolMXFP8(MHATokenToKVPool):
    def get_key_buffer(self, layer_id: int):
        idx = layer_id - self.start_layer
        buf = self.k_buffer[idx]
        scale = self.k_scale_buffer[idx].repeat_interleave(32, dim=-1)
        return buf.to(self.dtype) * scale  # positive: f6 CL004 accessor dequantizes the whole per-layer key buffer

    def get_key_rows(self, layer_id: int, loc: torch.Tensor):
        idx = layer_id - self.start_layer
        return self.k_buffer[idx][loc].to(self.dtype)  # negative: rows selected first

    def get_value_buffer(self, layer_id: int):
        return self.v_buffer[layer_id - self.start_layer]

    def set_kv_buffer(self, layer, loc, cache_k, cache_v, k_scale=None, v_scale=None):
        self.k_buffer[layer.layer_id - self.start_layer][loc] = cache_k.to(self.store_dtype)  # negative: new tokens
        self.v_buffer[layer.layer_id - self.start_layer][loc] = cache_v.to(self.store_dtype)  # negative: new tokens
