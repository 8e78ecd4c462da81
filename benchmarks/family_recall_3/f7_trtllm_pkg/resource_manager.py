import torch


class PagedKVManager:
    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, device):
        self.kv_pool = torch.empty(
            (num_blocks, num_layers, 2, tokens_per_block, num_kv_heads, head_dim), dtype=torch.float8_e4m3fn, device=device
        )
        self.layer_to_offset = list(range(num_layers))

    def get_buffers(self, layer_idx: int) -> torch.Tensor:
        return self.kv_pool[:, self.layer_to_offset[layer_idx]]

    def layer_kv(self, layer_idx: int) -> torch.Tensor:
        return self.get_buffers(layer_idx)
