import torch

from . import state


class SlabPool:
    def __init__(self, size, layers):
        self.slabs = [torch.empty(size, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layers)]


class GlobalRunner:
    def init_memory_pool(self, size, layers):
        state.POOL = SlabPool(size, layers)
