import torch


class BlockCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_dim, device):
        self.key_blocks = [
            torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=torch.uint8, device=device)
            for _ in range(num_layers)
        ]
        self.value_blocks = [
            torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=torch.uint8, device=device)
            for _ in range(num_layers)
        ]

    def layer_blocks(self, layer_idx: int):
        return self.key_blocks[layer_idx], self.value_blocks[layer_idx]
