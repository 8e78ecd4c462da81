"""A helper that gets both the tensor and the dtype through **kwargs."""

import torch


def _densify(**kw):
    src = kw["src"]
    return src.to(kw.get("dtype", torch.bfloat16))  # note: generic, called with pool buffers and with rope tensors; labelled at the callers


class KwargsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.rope_dim = 64

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        spec = {"src": self.pool.get_key_buffer(layer.layer_id), "dtype": q.dtype}
        lat = _densify(**spec)  # positive: f4 CL001 whole key buffer passed inside a **kwargs dict
        q_pe = _densify(src=q[..., -self.rope_dim :], dtype=torch.float32)  # negative: rope part of the batch query
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, layer.v_head_dim)
        torch.ops.sgl_kernel.mla_decode(q, q_pe, lat, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = _densify(src=self.pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 whole value buffer with the default dtype from kw.get
        kk = _densify(**{"src": k, "dtype": q.dtype})  # negative: batch key through the same helper
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, layer.v_head_dim)
        torch.ops.sgl_kernel.mla_extend(q, kk, lat, o, forward_batch.extend_seq_lens)
        return o
