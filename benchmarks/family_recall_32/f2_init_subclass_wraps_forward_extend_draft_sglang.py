"""sglang EAGLE draft backend: the base __init_subclass__ wraps forward_extend of subclasses that set NEEDS_DENSE_TARGET."""
import functools

import torch


class DraftAttnBackendBase:
    NEEDS_DENSE_TARGET = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.NEEDS_DENSE_TARGET:
            inner = cls.forward_extend

            @functools.wraps(inner)
            def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                pool = self.target_pool
                self.dense_key = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole target key buffer per draft extend
                return inner(self, q, k, v, layer, forward_batch, save_kv_cache)

            cls.forward_extend = forward_extend

    def __init__(self, target_pool):
        self.target_pool = target_pool
        self.dense_key = None


class EagleDraftTritonBackend(DraftAttnBackendBase):
    NEEDS_DENSE_TARGET = True

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = self.target_pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: row gather
        return q, self.dense_key, rows


class NgramDraftBackend(DraftAttnBackendBase):
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q, k.to(q.dtype), v  # negative: new tokens
