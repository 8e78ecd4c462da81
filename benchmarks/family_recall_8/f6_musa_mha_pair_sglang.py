import torch


class MusaMHABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        key_cache, value_cache = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        if self.kv_cache_dtype == torch.float8_e4m3fn:
            key_cache = key_cache.to(q.dtype)  # positive: f6 CL001 musa-style pair upcast, K
            value_cache = value_cache.to(q.dtype)  # positive: f6 CL001 musa-style pair upcast, V
        return key_cache, value_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        raw_k, raw_v = self.token_to_kv_pool.get_raw_kv_buffer(layer.layer_id, forward_batch.out_cache_loc)
        return raw_k.to(q.dtype), raw_v  # negative: raw rows at the step's locations
