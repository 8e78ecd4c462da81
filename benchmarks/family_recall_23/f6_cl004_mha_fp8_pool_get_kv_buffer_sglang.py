# sglang MHA token pool storing FP8 for a backend that only reads bf16.
import torch


class CompatMHATokenToKVPool:
    def __init__(self, size, page_size, dtype, head_num, head_dim, layer_num, device, compute_dtype):
        self.dtype = dtype
        self.compute_dtype = compute_dtype
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
                         for _ in range(layer_num)]
        self.v_buffer = [torch.zeros_like(b) for b in self.k_buffer]

    def get_kv_buffer(self, layer_id):
        k = self.k_buffer[layer_id - self.start_layer]
        v = self.v_buffer[layer_id - self.start_layer]
        return k.to(self.compute_dtype), v.to(self.compute_dtype)  # positive: f6 CL004 accessor widens both whole per-layer buffers

    def get_kv_rows(self, layer_id, loc):
        k = self.k_buffer[layer_id - self.start_layer][loc]
        return k.to(self.compute_dtype)  # negative: rows selected first

    def set_kv_buffer(self, layer, loc, cache_k, cache_v, k_scale=None, v_scale=None):
        self.k_buffer[layer.layer_id - self.start_layer][loc] = cache_k.to(self.dtype)  # negative: writer of new tokens
