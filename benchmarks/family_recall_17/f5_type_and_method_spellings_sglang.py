"""sglang: conversion spellings on a pool layer: Tensor.type(dtype), .bfloat16(), type_as
and the unbound torch.Tensor.float; .type() without an argument and type_as(buf) are not."""
import torch


class SpellingsBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        kind = k_buf.type()  # negative: returns the type name, no conversion
        k1 = k_buf.type(torch.bfloat16)  # positive: f5 CL001 Tensor.type with a dtype
        v1 = v_buf.bfloat16()  # positive: f5 CL001 method spelling
        k2 = k_buf.type_as(q)  # positive: f5 CL001 type_as the bf16 query
        v2 = torch.Tensor.float(v_buf)  # positive: f5 CL001 unbound method spelling
        same = v_buf.type_as(k_buf)  # negative: same dtype as the pool
        return q, kind, k1, v1, k2, v2, same
