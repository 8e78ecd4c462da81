"""Torch-native style backend that stores pool accessors under other names."""
from __future__ import annotations

import torch
from torch.nn.functional import scaled_dot_product_attention

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class AliasedAccessorBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self._get_k = pool.get_key_buffer
        self._get_v = pool.get_value_buffer
        self._get_kv = pool.get_kv_buffer
        self.req_to_token = model_runner.req_to_token_pool.req_to_token
        self.kv_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_cache = self._get_k(layer.layer_id).to(q.dtype)  # positive: f1 CL001 bound accessor stored on self
        v_cache = self._get_v(layer.layer_id).to(q.dtype)  # positive: f1 CL001 bound accessor stored on self
        return self._run(q, k_cache, v_cache, layer, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        read_value = forward_batch.token_to_kv_pool.get_value_buffer
        v_cache = read_value(layer.layer_id).bfloat16()  # positive: f1 CL001 local alias of accessor
        k_cache, _ = self._get_kv(layer.layer_id)
        k_cache = k_cache.half()  # positive: f1 CL001 tuple from aliased get_kv_buffer
        return self._run(q, k_cache, v_cache, layer, forward_batch)

    def _run(self, q, k_cache, v_cache, layer, forward_batch):
        out = torch.empty_like(q)
        start = 0
        for i, seq_len in enumerate(forward_batch.seq_lens_cpu.tolist()):
            req = forward_batch.req_pool_indices[i]
            tokens = self.req_to_token[req, :seq_len]
            per_req_k = self._get_k(layer.layer_id)[tokens].to(q.dtype)  # negative: gather by req_to_token first
            per_req_v = self._get_v(layer.layer_id)[tokens].to(q.dtype)  # negative: gather by req_to_token first
            o = scaled_dot_product_attention(q[start:start + 1].unsqueeze(0), per_req_k.unsqueeze(0), per_req_v.unsqueeze(0))
            out[start:start + 1] = o.squeeze(0)
            start += 1
        return out
