"""A decorator casts what decorated accessor methods return."""
import functools

import torch


def upcasting(dtype):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs).to(dtype)  # note: decorator cast, labelled at the calls of the decorated methods

        return wrapper

    return deco


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


class DecoratedBackend:
    def __init__(self, model_runner):
        self.kernel = model_runner.attn_kernels.extend
        self.dtype = model_runner.dtype

    @upcasting(torch.bfloat16)
    def _keys(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    @upcasting(torch.bfloat16)
    def _rows(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc]

    @timed
    def _values(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self._keys(layer, forward_batch)  # positive: f4 CL001 decorated accessor returns the whole key pool, the decorator casts it
        vr = self._rows(layer, forward_batch)  # negative: decorated accessor gathers before the decorator's cast
        return self.kernel(q, kb, vr)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vb = self._values(layer, forward_batch).to(q.dtype)  # positive: f4 CL001 pass-through wrapper returns the whole value pool
        qb = q.to(self.dtype)  # negative: batch q
        return vb, qb
