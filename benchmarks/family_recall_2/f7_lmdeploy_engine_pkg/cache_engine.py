from typing import List, Tuple

import torch

from .records import CacheRecord


class MiniCacheEngine:
    def __init__(self, num_layers: int, num_gpu_blocks: int, block_size: int, num_heads: int, head_dim: int, dtype: torch.dtype):
        self.num_layers = num_layers
        self.block_size = block_size
        self.local_gpu_cache: List[Tuple[torch.Tensor, torch.Tensor]] = []
        for _ in range(num_layers):
            k = torch.empty((num_gpu_blocks, block_size, num_heads, head_dim), dtype=dtype, device="cuda")
            v = torch.empty((num_gpu_blocks, block_size, num_heads, head_dim), dtype=dtype, device="cuda")
            self.local_gpu_cache.append((k, v))

    @property
    def gpu_cache(self) -> List[Tuple[torch.Tensor, torch.Tensor]]:
        return self.local_gpu_cache

    def record(self, layer_idx: int) -> CacheRecord:
        k, v = self.local_gpu_cache[layer_idx]
        return CacheRecord(layer_idx=layer_idx, k_cache=k, v_cache=v)
