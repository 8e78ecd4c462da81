"""sglang-style pool keeping keys FP8 and values BF16; its key accessor widens the layer on each read."""
import torch


class MHATokenToKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, device, start_layer=0):
        self.start_layer = start_layer
        self.k_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id - self.start_layer]


class SplitPrecisionTokenToKVPool(MHATokenToKVPool):
    def __init__(self, size, head_num, head_dim, layer_num, device, start_layer=0):
        super().__init__(size, head_num, head_dim, layer_num, torch.bfloat16, device, start_layer)
        self.k_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]
        self.compute_dtype = torch.bfloat16

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer].to(self.compute_dtype)  # positive: f6 CL004 accessor widens the whole FP8 key layer on every read

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id - self.start_layer].to(self.compute_dtype)  # negative: value layer is already bf16, same dtype

    def get_key_rows(self, layer_id, loc):
        return self.k_buffer[layer_id - self.start_layer][loc].to(self.compute_dtype)  # negative: gathered rows


class TorchNativeAttnBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        keys = pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        values = pool.get_value_buffer(layer.layer_id)
        fresh = pool.get_key_rows(layer.layer_id, forward_batch.out_cache_loc)
        return self._sdpa(q, keys, values, fresh)

    def _sdpa(self, q, keys, values, fresh):
        return q
