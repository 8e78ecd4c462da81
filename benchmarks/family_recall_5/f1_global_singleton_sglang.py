"""A module-level singleton pool reached through a getter function."""

import torch

_GLOBAL_POOL = None
_GLOBAL_SCRATCH = None


def set_global_kv_pool(pool):
    global _GLOBAL_POOL, _GLOBAL_SCRATCH
    _GLOBAL_POOL = pool
    _GLOBAL_SCRATCH = torch.empty(32, 576, dtype=torch.float8_e4m3fn, device="cuda")


def get_global_kv_pool():
    assert _GLOBAL_POOL is not None
    return _GLOBAL_POOL


def get_global_scratch():
    return _GLOBAL_SCRATCH


class SingletonPoolBackend:
    def __init__(self, model_runner):
        set_global_kv_pool(model_runner.token_to_kv_pool)
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        latent = get_global_kv_pool().get_key_buffer(layer.layer_id)
        lat = latent.to(self.dtype)  # positive: f1 CL001 pool from a module-level singleton getter, whole layer cast
        pad = get_global_scratch().to(self.dtype)  # negative: 32-row scratch, not the pool
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, layer.v_head_dim)
        torch.ops.sgl_kernel.mla_decode(q, lat, pad, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = get_global_kv_pool()
        v_all = pool.get_value_buffer(layer.layer_id).to(self.dtype)  # positive: f1 CL001 value buffer of the singleton pool cast whole
        page = pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(self.dtype)  # negative: gather-then-cast
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, layer.v_head_dim)
        torch.ops.sgl_kernel.mla_extend(q, page, v_all, o, forward_batch.extend_seq_lens)
        return o
