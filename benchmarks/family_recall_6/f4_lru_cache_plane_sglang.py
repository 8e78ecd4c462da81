"""Plane lookups memoized with functools.lru_cache / functools.cache; callers convert the result."""
import functools

import torch


class MemoPlaneBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.req_to_token = model_runner.req_to_token_pool.req_to_token

    @functools.lru_cache(maxsize=128)
    def _key_plane(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id)

    @functools.cache
    def _value_plane(self, layer_id):
        return self.token_to_kv_pool.get_value_buffer(layer_id)

    @functools.lru_cache(maxsize=8)
    def _compute_dtype(self, name):
        return {"bf16": torch.bfloat16, "fp16": torch.float16}[name]

    def forward_extend(self, q, k, v, layer, forward_batch):
        dt = self._compute_dtype("bf16")
        kp = self._key_plane(layer.layer_id).to(dt)  # positive: f4 CL001 the memoized accessor returns the whole key buffer
        vp = self._value_plane(layer.layer_id).to(q.dtype)  # positive: f4 CL001 the memoized accessor returns the whole value buffer
        own = self._key_plane(layer.layer_id)
        same = own.to(own.dtype)  # negative: cast to its own dtype
        idx = self.req_to_token[forward_batch.req_pool_indices].to(torch.int64)  # negative: index table
        return kp, vp, same, idx
