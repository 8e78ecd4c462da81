import torch


class MLATokenToKVPoolFnuz:
    """MI300: checkpoints ship e4m3fn; the pool stores e4m3fn and hands out fnuz for aiter."""

    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, layer_num, device, start_layer=0):
        self.dtype = torch.float8_e4m3fnuz
        self.store_dtype = torch.float8_e4m3fn
        self.start_layer = start_layer
        self.kv_buffer = [
            torch.zeros(size + 1, 1, kv_lora_rank + qk_rope_head_dim, dtype=self.store_dtype, device=device)
            for _ in range(layer_num)
        ]

    def get_key_buffer(self, layer_id: int):
        return self.kv_buffer[layer_id - self.start_layer].to(self.dtype)  # positive: f6 CL004 accessor converts the whole per-layer buffer

    def get_value_buffer(self, layer_id: int):
        return self.kv_buffer[layer_id - self.start_layer][..., :512].view(torch.uint8)  # negative: reinterpret

    def get_rows(self, layer_id: int, loc: torch.Tensor):
        return self.kv_buffer[layer_id - self.start_layer][loc].to(self.dtype)  # negative: rows first

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        self.kv_buffer[layer.layer_id - self.start_layer][loc] = cache_k.to(self.store_dtype)  # negative: writer of new tokens


class AiterMLADecode:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        return kv
