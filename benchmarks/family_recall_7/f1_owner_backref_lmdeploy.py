"""f1: a block manager keeps a back-reference to its cache engine; attention reads caches through it."""
import torch


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_dim, dtype):
        self.gpu_cache = []
        for _ in range(num_layers):
            k = torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=dtype, device="cuda")
            v = torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=dtype, device="cuda")
            self.gpu_cache.append((k, v))
        self.manager = BlockManager(self, num_blocks)


class BlockManager:
    def __init__(self, owner: CacheEngine, num_blocks: int):
        self.owner = owner
        self.free = torch.arange(num_blocks, dtype=torch.int32)

    def free_ids(self):
        return self.free


class BackrefAttention:
    def __init__(self, manager: BlockManager, layer_idx: int):
        self.manager = manager
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.manager.owner.gpu_cache[self.layer_idx]
        k_full = k_cache.to(query.dtype)  # positive: f1 CL001 caches reached through the owner back-reference
        v_full = self.manager.owner.gpu_cache[self.layer_idx][1].half()  # positive: f1 CL001 same, inline
        free = self.manager.free_ids().to(torch.int64)  # negative: free block ids
        return k_full, v_full, free
