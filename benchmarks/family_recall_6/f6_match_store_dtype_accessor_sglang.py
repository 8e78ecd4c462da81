"""CL004: a pool accessor that picks its return with a match on the store dtype."""
import torch


class MatchMHATokenToKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, store_dtype, start_layer=0):
        self.dtype = dtype
        self.store_dtype = store_dtype
        self.start_layer = start_layer
        shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=store_dtype) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=store_dtype) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        buf = self.k_buffer[layer_id - self.start_layer]
        match self.store_dtype:
            case torch.uint8:
                return buf.view(self.dtype)  # negative: reinterpret of the uint8 arena
            case self.dtype:
                return buf
            case _:
                return buf.to(self.dtype)  # positive: f6 CL004 converts the whole per-layer buffer on every read

    def get_value_buffer(self, layer_id):
        buf = self.v_buffer[layer_id - self.start_layer]
        if buf.dtype is self.dtype:
            return buf
        return buf.to(dtype=self.dtype)  # positive: f6 CL004 same, for the value plane

    def get_kv_buffer(self, layer_id):
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        if cache_k.dtype != self.dtype:
            cache_k = cache_k.to(self.dtype)  # negative: writer, the step's new keys
        self.k_buffer[layer.layer_id - self.start_layer][loc] = cache_k.view(self.store_dtype)
        self.v_buffer[layer.layer_id - self.start_layer][loc] = cache_v.to(self.store_dtype)  # negative: writer
