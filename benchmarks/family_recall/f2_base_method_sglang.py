"""Backend hierarchy: base class exposes the cache, subclasses upcast it."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

if TYPE_CHECKING:
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class PoolAwareBackend(AttentionBackend):
    def _key_cache(self, layer, forward_batch: ForwardBatch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _value_cache(self, layer, forward_batch: ForwardBatch):
        return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)

    def _key_rows(self, layer, forward_batch: ForwardBatch, loc):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]


class TritonLikeBackend(PoolAwareBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.num_head = model_runner.model_config.num_attention_heads

    def forward_decode(self, q, k, v, layer, forward_batch: ForwardBatch, save_kv_cache=True):
        k_buf = self._key_cache(layer, forward_batch).to(q.dtype)  # positive: f2 CL001 base-class method via self
        v_buf = super()._value_cache(layer, forward_batch).to(q.dtype)  # positive: f2 CL001 base-class method via super()
        return self._decode(q, k_buf, v_buf)

    def forward_extend(self, q, k, v, layer, forward_batch: ForwardBatch, save_kv_cache=True):
        rows = self._key_rows(layer, forward_batch, forward_batch.out_cache_loc).to(q.dtype)  # negative: base method gathers rows
        bs = forward_batch.batch_size
        scratch = torch.empty((bs, self.num_head, q.shape[-1]), dtype=q.dtype, device=q.device)  # negative: batch-sized allocation
        return rows, scratch

    def _decode(self, q, k, v):
        return torch.empty_like(q)
