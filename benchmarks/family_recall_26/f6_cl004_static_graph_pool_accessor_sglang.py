import torch


class GraphStaticMLATokenToKVPool:
    """MLA pool for a CUDA-graph path that only has bf16 kernels; storage is FP8 in a uint8 arena."""

    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, layer_num, device, store_dtype=torch.uint8):
        self.size = size
        self.dtype = torch.float8_e4m3fn
        self.graph_dtype = torch.bfloat16
        self.kv_buffer = [
            torch.zeros((size + 1, 1, kv_lora_rank + qk_rope_head_dim), dtype=store_dtype, device=device)
            for _ in range(layer_num)
        ]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype).to(self.graph_dtype)  # positive: f6 CL004 the pool's accessor converts the whole per-layer buffer

    def get_fp8_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype)  # negative: reinterpret only

    def get_rows(self, layer_id, loc):
        return self.kv_buffer[layer_id][loc].view(self.dtype).to(self.graph_dtype)  # negative: rows gathered first

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        self.kv_buffer[layer.layer_id][loc] = cache_k.to(self.dtype).view(torch.uint8)  # negative: writer of new tokens
