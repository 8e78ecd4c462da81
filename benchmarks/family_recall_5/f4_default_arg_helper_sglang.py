"""Helpers with default dtype arguments; one only sees pool buffers."""

import torch


def _dense_layer(buf, dtype=torch.bfloat16):
    return buf.to(dtype)  # positive: f4 CL001 helper whose every caller passes a whole per-layer pool buffer


def _maybe_cast(t, *, dtype=None):
    return t if dtype is None else t.to(dtype)  # note: generic; labelled at the callers


class DefaultArgBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = _dense_layer(self.pool.get_key_buffer(layer.layer_id))
        scale = _maybe_cast(layer.k_scale, dtype=torch.float32)  # negative: scale
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, lat, scale, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = _dense_layer(self.pool.get_key_buffer(layer.layer_id), q.dtype)
        val = _maybe_cast(self.pool.get_value_buffer(layer.layer_id), dtype=q.dtype)  # positive: f4 CL001 keyword-only dtype helper given the whole value buffer
        kk = _maybe_cast(k, dtype=q.dtype)  # negative: batch key
        same = _maybe_cast(self.pool.get_key_buffer(layer.layer_id))  # negative: no dtype, returned unchanged
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, kk, lat, val, same, o, forward_batch.extend_seq_lens)
        return o
