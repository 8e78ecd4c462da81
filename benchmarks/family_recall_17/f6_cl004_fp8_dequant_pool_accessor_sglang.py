"""sglang: an FP8 MHA pool whose get_key_buffer/get_value_buffer hand out the layer
already converted to the model dtype (the pool stores uint8)."""
import torch


class MHATokenToKVPoolFP8Read:
    def __init__(self, size, head_num, head_dim, layer_num, device, dtype, start_layer=0):
        self.dtype = dtype
        self.store_dtype = torch.uint8
        self.kv_dtype = torch.float8_e4m3fn
        self.start_layer = start_layer
        shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.k_scale = [torch.ones((), device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer].view(self.kv_dtype).to(self.dtype)  # positive: f6 CL004 the accessor converts the whole layer

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id - self.start_layer].view(self.kv_dtype)

    def get_key_scale(self, layer_id):
        return self.k_scale[layer_id - self.start_layer].to(self.dtype)  # negative: a scalar scale

    def get_key_rows(self, layer_id, loc):
        return self.k_buffer[layer_id - self.start_layer][loc].view(self.kv_dtype).to(self.dtype)  # negative: rows


class TritonDecodeBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the converting accessor
        v_buf = pool.get_value_buffer(layer.layer_id)
        return q, k_buf, v_buf
