import torch

from .registry import register_pool


class TinyPool:
    def __init__(self, layers, size, dim):
        self.k_buffer = [torch.empty(size, 8, dim, dtype=torch.float8_e4m3fn) for _ in range(layers)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id]


def init_memory_pool(layers, size, dim):
    pool = TinyPool(layers, size, dim)
    register_pool("kv", pool)
    register_pool("req_lens", torch.zeros(64, dtype=torch.int32))
    return pool
