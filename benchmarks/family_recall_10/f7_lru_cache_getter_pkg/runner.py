import torch

from .state import set_pool


class LayeredPool:
    def __init__(self, size, layers):
        self.layers = [torch.empty(size, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layers)]
        self.free_slots = torch.arange(size, dtype=torch.int64)


class Runner:
    def init_memory_pool(self, size, layers):
        self.pool = LayeredPool(size, layers)
        set_pool(self.pool)
