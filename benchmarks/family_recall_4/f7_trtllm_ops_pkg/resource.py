import torch


class PoolManager:
    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, device):
        self.pool = torch.empty(
            (num_layers, num_blocks, 2, tokens_per_block, num_kv_heads, head_dim), dtype=torch.float8_e4m3fn, device=device
        )
        self.seq_slots = torch.zeros(1024, dtype=torch.int32, device=device)

    def layer_pool(self, layer_idx: int) -> torch.Tensor:
        return self.pool[layer_idx]
