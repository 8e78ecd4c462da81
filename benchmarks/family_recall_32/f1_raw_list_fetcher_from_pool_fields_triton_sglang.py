"""sglang Triton backend: a _Fetcher built from the pool's raw k_buffer / v_buffer lists (FP8 stored as uint8)."""
import torch


class _Fetcher:
    def __init__(self, k_list, v_list, store_dtype):
        self.k_list = k_list
        self.v_list = v_list
        self.store_dtype = store_dtype

    def key(self, layer_id, dtype):
        return self.k_list[layer_id].view(self.store_dtype).to(dtype)  # positive: f1 CL001 whole uint8 arena viewed to fp8 and widened

    def value(self, layer_id, dtype):
        return self.v_list[layer_id].view(self.store_dtype)  # negative: view(dtype) reinterpret only


class TritonFp8FallbackBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.fetch = _Fetcher(pool.k_buffer, pool.v_buffer, pool.dtype)

    def forward_decode(self, q, k, v, layer, forward_batch):
        key = self.fetch.key(layer.layer_id, q.dtype)
        value = self.fetch.value(layer.layer_id, q.dtype)
        value = value[forward_batch.req_to_token_pool.req_to_token[0]].to(q.dtype)  # negative: row gather before the cast
        return q, key, value
