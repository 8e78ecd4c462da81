"""A pool accessor that converts inside try and counts reads in finally (CL004)."""
import torch


class CountingMLAPool:
    def __init__(self, size, layers, store_dtype, dtype):
        self.kv_buffer = [torch.empty(size, 1, 576, dtype=store_dtype) for _ in range(layers)]
        self.dtype = dtype
        self.reads = 0
        self.start_layer = 0

    def get_key_buffer(self, layer_id):
        try:
            return self.kv_buffer[layer_id - self.start_layer].to(self.dtype)  # positive: f6 CL004 accessor converts the whole layer
        finally:
            self.reads += 1

    def get_raw_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id - self.start_layer]


class CountingBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        raw = forward_batch.token_to_kv_pool.get_raw_key_buffer(layer.layer_id)
        rows = raw[forward_batch.out_cache_loc].to(q.dtype)  # negative: gather-then-cast
        return lat, rows
