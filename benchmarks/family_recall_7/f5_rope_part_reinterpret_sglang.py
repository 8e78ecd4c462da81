"""f5: the rope part of every token, and reinterpret-then-convert of a uint8 MLA arena."""
import torch


class ArenaMLAPool:
    def __init__(self, size, layer_num, device):
        self.kv_lora_rank = 512
        self.kv_buffer = [torch.zeros((size + 1, 1, 576), dtype=torch.uint8, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class RopePartBackend:
    def __init__(self, pool: ArenaMLAPool, dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_decode(self, q, layer, forward_batch):
        raw = self.pool.get_key_buffer(layer.layer_id)
        fp8 = raw.view(torch.float8_e4m3fn)  # negative: zero-copy reinterpret
        rope = fp8[..., self.pool.kv_lora_rank :].float()  # positive: f5 CL001 rope part of every token
        dense = raw.view(torch.float8_e4m3fn).to(torch.bfloat16)  # positive: f5 CL001 reinterpret then convert the whole layer
        alt = raw.view(dtype=torch.float8_e4m3fn).to(self.dtype)  # positive: f5 CL001 keyword reinterpret then convert
        bytes_view = raw.view(torch.uint8)  # negative: same dtype view
        rows = fp8[forward_batch.out_cache_loc].float()  # negative: gather then cast
        return rope, dense, alt, bytes_view, rows
