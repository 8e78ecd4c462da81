"""sglang XPU MHA pool: pool[layer_id] (__getitem__) returns the layer's buffers converted to the model dtype."""
import torch


class XPUMHATokenToKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, model_dtype, device, start_layer=0):
        self.dtype, self.model_dtype, self.start_layer = dtype, model_dtype, start_layer
        self.store_dtype = torch.uint8 if dtype in (torch.float8_e4m3fn, torch.float8_e5m2) else dtype
        self.k_buffer = [torch.zeros(size, head_num, head_dim, dtype=self.store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size, head_num, head_dim, dtype=self.store_dtype, device=device) for _ in range(layer_num)]

    def __getitem__(self, layer_id: int):
        i = layer_id - self.start_layer
        return self.k_buffer[i].view(self.dtype).to(self.model_dtype), self.v_buffer[i].view(self.dtype).to(self.model_dtype)  # positive: f6 CL004 the pool's own accessor converts both whole buffers

    def get_key_rows(self, layer_id: int, loc: torch.Tensor):
        return self.k_buffer[layer_id - self.start_layer][loc].view(self.dtype).to(self.model_dtype)  # negative: rows first

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        i = layer.layer_id - self.start_layer
        self.k_buffer[i][loc] = cache_k.to(self.dtype).view(self.store_dtype)  # negative: new tokens written
        self.v_buffer[i][loc] = cache_v.to(self.dtype).view(self.store_dtype)  # negative: new tokens written


class XPUAttnBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = forward_batch.token_to_kv_pool[layer.layer_id]
        return self._decode(q, k_buf, v_buf, forward_batch)
