"""MLA latent pool module with custom accessor names and an FP8 scale."""
import torch


class LatentTokenPool:
    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, layer_num, start_layer=0):
        self.kv_lora_rank = kv_lora_rank
        self.start_layer = start_layer
        self.kv = [
            torch.zeros((size + 1, 1, kv_lora_rank + qk_rope_head_dim), dtype=torch.float8_e4m3fn, device="cuda")
            for _ in range(layer_num)
        ]
        self.scale = torch.ones((layer_num,), dtype=torch.float32, device="cuda")

    def get_latent(self, layer_id):
        return self.kv[layer_id - self.start_layer]

    def get_latent_scale(self, layer_id):
        return self.scale[layer_id - self.start_layer]

    def store(self, layer_id, loc, cache):
        self.kv[layer_id - self.start_layer][loc] = cache.to(torch.float8_e4m3fn)  # negative: store casts new tokens
