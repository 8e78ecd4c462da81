"""Tuples returned by helper functions and unpacked at the call site."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def fetch_layer(forward_batch, layer):
    pool = forward_batch.token_to_kv_pool
    return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)


def fetch_layer_rows(forward_batch, layer):
    pool = forward_batch.token_to_kv_pool
    loc = forward_batch.out_cache_loc
    return pool.get_key_buffer(layer.layer_id)[loc], pool.get_value_buffer(layer.layer_id)[loc]


class TupleBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = fetch_layer(forward_batch, layer)
        k_cache = k_cache.to(q.dtype)  # positive: f3 CL001 first element of returned tuple
        pair = fetch_layer(forward_batch, layer)
        v_cache = pair[1].to(q.dtype)  # positive: f3 CL001 tuple element by index
        return k_cache, v_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_rows, v_rows = fetch_layer_rows(forward_batch, layer)
        return k_rows.to(q.dtype), v_rows.to(q.dtype)  # negative: helper already gathered rows

    def forward_mixed(self, q, layer, forward_batch):
        (k_cache, v_cache), scale = fetch_layer(forward_batch, layer), layer.k_scale
        return (k_cache.to(q.dtype) * scale, v_cache)  # positive: f3 CL001 nested unpack then cast
