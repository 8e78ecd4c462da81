import torch


class CacheEngineLite:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim, dtype):
        shape = (num_blocks, block_size, heads, dim)
        self.gpu_cache = [
            (torch.empty(shape, dtype=dtype, device="cuda"), torch.empty(shape, dtype=dtype, device="cuda"))
            for _ in range(num_layers)
        ]
