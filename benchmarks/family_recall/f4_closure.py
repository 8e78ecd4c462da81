"""Closures that capture the pool (reader factory, upcaster factory)."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def make_reader(pool):
    def read(layer_id):
        return pool.get_key_buffer(layer_id)

    return read


def make_upcaster(pool, dtype):
    def upcast(layer_id):
        return pool.get_value_buffer(layer_id).to(dtype)  # positive: f4 CL001 conversion inside a closure

    return upcast


def make_row_reader(pool):
    def rows(layer_id, loc):
        return pool.get_key_buffer(layer_id)[loc].to(pool.dtype)  # negative: gather first inside closure

    return rows


class ClosureBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.read_k = make_reader(pool)
        self.upcast_v = make_upcaster(pool, model_runner.dtype)
        self.rows = make_row_reader(pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.read_k(layer.layer_id).to(q.dtype)  # positive: f4 CL001 closure returns the pool
        v_cache = self.upcast_v(layer.layer_id)
        return k_cache, v_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool

        def whole():
            return pool.get_key_buffer(layer.layer_id)

        k_all = whole().float()  # positive: f4 CL001 nested function returns the pool
        rows = self.rows(layer.layer_id, forward_batch.out_cache_loc)
        return k_all, rows
