"""Decorator-wrapped helpers (nvtx ranges, torch.compiler.disable, lru_cache)."""
import functools

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def nvtx_range(name):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            torch.cuda.nvtx.range_push(name)
            try:
                return fn(*args, **kwargs)
            finally:
                torch.cuda.nvtx.range_pop()

        return wrapper

    return deco


@nvtx_range("kv.whole")
def whole_key(pool, layer_id):
    return pool.get_key_buffer(layer_id)


@torch.compiler.disable
def upcast_value(pool, layer_id, dtype):
    return pool.get_value_buffer(layer_id).to(dtype)  # positive: f4 CL001 conversion in a decorated helper


@functools.lru_cache(maxsize=None)
def kv_bytes(head_num, head_dim, itemsize):
    return head_num * head_dim * itemsize


class DecoratedBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache = whole_key(pool, layer.layer_id).to(q.dtype)  # positive: f4 CL001 decorated helper returns the pool
        v_cache = upcast_value(pool, layer.layer_id, q.dtype)
        per_tok = kv_bytes(layer.tp_k_head_num, layer.qk_head_dim, 1)  # negative: cached size helper
        return k_cache, v_cache, per_tok

    @nvtx_range("decode.rows")
    def rows(self, pool, layer, loc):
        return whole_key(pool, layer.layer_id)[loc].to(torch.bfloat16)  # negative: gather first
