"""A decorator injects the layer's pool buffers as keyword arguments of the decorated forward."""
import functools

import torch


def with_layer_kv(fn):
    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, **kw):
        pool = forward_batch.token_to_kv_pool
        kw.setdefault("k_cache", pool.get_key_buffer(layer.layer_id))
        kw.setdefault("v_cache", pool.get_value_buffer(layer.layer_id))
        return fn(self, q, k, v, layer, forward_batch, **kw)

    return wrapper


def with_new_rows(fn):
    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, **kw):
        pool = forward_batch.token_to_kv_pool
        kw["k_rows"] = pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        return fn(self, q, k, v, layer, forward_batch, **kw)

    return wrapper


class InjectedBackend:
    @with_layer_kv
    def forward_decode(self, q, k, v, layer, forward_batch, k_cache=None, v_cache=None):
        kc = k_cache.to(q.dtype)  # positive: f4 CL001 the decorator injects the whole key buffer
        vc = v_cache.float()  # positive: f4 CL001 the decorator injects the whole value buffer
        kv8 = k_cache.view(torch.uint8)  # negative: reinterpret
        return kc, vc

    @with_new_rows
    def forward_extend(self, q, k, v, layer, forward_batch, k_rows=None):
        kr = k_rows.to(q.dtype)  # negative: injected rows are gathered at out_cache_loc
        kk = k.to(q.dtype)  # negative: batch keys
        return kr, kk
