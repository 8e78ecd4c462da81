"""A class-based decorator (an object with __call__) that converts what the decorated accessor returns."""
import functools

import torch


class upcast_result:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs).to(self.dtype)  # positive: f4 CL001 the decorator only wraps whole-layer pool getters

        return wrapper


class DecoratedGetterBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.req_to_token = model_runner.req_to_token_pool.req_to_token

    @upcast_result(torch.bfloat16)
    def _key(self, layer_id):
        return self.pool.get_key_buffer(layer_id)

    @upcast_result(torch.bfloat16)
    def _value(self, layer_id):
        return self.pool.get_value_buffer(layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd, vd = self._key(layer.layer_id), self._value(layer.layer_id)
        tbl = self.req_to_token[forward_batch.req_pool_indices].to(torch.int64)  # negative: token table rows
        q_b = q.to(torch.bfloat16)  # negative: batch query
        return q_b, kd, vd, tbl
