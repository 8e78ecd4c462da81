"""sglang MUSA MLA pool: its own get_key_buffer converts the whole per-layer e5m2 buffer on every read (CL004)."""
import torch


class MusaMLATokenToKVPool:
    def __init__(self, size, page_size, kv_lora_rank, qk_rope_head_dim, layer_num, device, model_dtype):
        self.store_dtype = torch.float8_e5m2
        self.model_dtype = model_dtype
        self.start_layer = 0
        self.kv_buffer = [torch.zeros(size + page_size, 1, kv_lora_rank + qk_rope_head_dim, dtype=torch.uint8, device=device) for _ in range(layer_num)]  # negative: allocation in __init__
        self.kv_lora_rank = kv_lora_rank

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id - self.start_layer].view(self.store_dtype).to(self.model_dtype)  # positive: f6 CL004 the pool's accessor widens its whole per-layer buffer

    def get_value_buffer(self, layer_id):
        return self.get_key_buffer(layer_id)[..., : self.kv_lora_rank]

    def get_key_rows(self, layer_id, loc):
        return self.kv_buffer[layer_id - self.start_layer][loc].view(self.store_dtype).to(self.model_dtype)  # negative: rows gathered first

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        self.kv_buffer[layer.layer_id - self.start_layer][loc] = cache_k.to(self.store_dtype).view(torch.uint8)  # negative: writer of new tokens
