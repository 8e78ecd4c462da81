import torch


class CacheEngine:
    def __init__(self, num_layers, blocks, block_size, heads, dim):
        self.gpu_cache = [
            (torch.empty(blocks, block_size, heads, dim, dtype=torch.int8),
             torch.empty(blocks, block_size, heads, dim, dtype=torch.int8))
            for _ in range(num_layers)
        ]
        self.scales = [torch.ones(blocks, block_size, heads, 2, dtype=torch.float16) for _ in range(num_layers)]
