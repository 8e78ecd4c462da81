import torch


class PagedLatentPool:
    def __init__(self, size, kv_lora_rank, rope_dim, layer_num, device):
        self.kv_buffer = [
            torch.zeros(size + 1, 1, kv_lora_rank + rope_dim, dtype=torch.float8_e4m3fn, device=device)
            for _ in range(layer_num)
        ]
        self.kv_lora_rank = kv_lora_rank

    def latent(self, layer_id):
        return self.kv_buffer[layer_id]

    def rows(self, layer_id, loc):
        return self.kv_buffer[layer_id][loc]
