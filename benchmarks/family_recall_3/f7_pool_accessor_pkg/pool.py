import torch


class ArenaMLAPool:
    def __init__(self, size, page_size, kv_lora_rank, qk_rope_head_dim, layer_num, device, start_layer=0):
        self.start_layer = start_layer
        self.dtype = torch.float8_e4m3fn
        self.arena = torch.zeros(
            (layer_num, size + page_size, 1, kv_lora_rank + qk_rope_head_dim), dtype=torch.uint8, device=device
        )

    def latent_cache(self, layer_id: int) -> torch.Tensor:
        return self.arena[layer_id - self.start_layer].view(self.dtype)

    def latent_rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.arena[layer_id - self.start_layer][loc].view(self.dtype)
