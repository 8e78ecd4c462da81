import torch


class MLATokenToKVPool:
    def __init__(self, size, page_size, dtype, kv_lora_rank, qk_rope_head_dim, layer_num, device, start_layer=0):
        self.dtype = dtype
        self.store_dtype = torch.uint8 if dtype in (torch.float8_e4m3fn, torch.float8_e5m2) else dtype
        self.start_layer = start_layer
        self.kv_buffer = [
            torch.zeros((size + page_size, 1, kv_lora_rank + qk_rope_head_dim), dtype=self.store_dtype, device=device)
            for _ in range(layer_num)
        ]

    def get_key_buffer(self, layer_id):
        buf = self.kv_buffer[layer_id - self.start_layer]
        if self.store_dtype != self.dtype:
            return buf.view(self.dtype)  # negative: zero-copy reinterpret of the uint8 arena
        return buf

    def get_key_buffer_bf16(self, layer_id):
        return self.get_key_buffer(layer_id).to(torch.bfloat16)  # positive: f6 CL004 accessor returns a converted whole layer

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        if cache_k.dtype != self.dtype:
            cache_k = cache_k.to(self.dtype)  # negative: writer casts the step's rows
        self.kv_buffer[layer.layer_id - self.start_layer][loc] = cache_k.view(self.store_dtype)


class FlashInferMLABackendCompat:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer_bf16(layer.layer_id)  # note: per-step caller of the CL004 accessor
        return self._run(q, kv)

    def _run(self, q, kv):
        return q
