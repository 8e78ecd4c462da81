from typing import Optional

import torch


class LatentArenaPool:
    def __init__(self, size: int, page_size: int, kv_lora_rank: int, qk_rope_head_dim: int, layer_num: int, dtype: torch.dtype, device: str, start_layer: Optional[int] = None):
        self.size = size
        self.page_size = page_size
        self.kv_lora_rank = kv_lora_rank
        self.start_layer = start_layer or 0
        self.kv_buffer = [
            torch.zeros((size + page_size, 1, kv_lora_rank + qk_rope_head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]

    def latent(self, layer_id: int) -> torch.Tensor:
        return self.kv_buffer[layer_id - self.start_layer]

    def latent_rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.kv_buffer[layer_id - self.start_layer][loc]


def paged_latent(buf: torch.Tensor, page_size: int) -> torch.Tensor:
    return buf.view(-1, page_size, buf.shape[-2], buf.shape[-1])
