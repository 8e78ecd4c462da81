"""Dataclass carrying one layer's K/V buffers, filled from the pool each forward."""
from dataclasses import dataclass
from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@dataclass
class LayerCache:
    key: torch.Tensor
    value: torch.Tensor
    k_scale: Optional[torch.Tensor] = None
    v_scale: Optional[torch.Tensor] = None


@dataclass
class StepMetadata:
    cu_seqlens_q: torch.Tensor
    cache_seqlens: torch.Tensor
    page_table: torch.Tensor
    max_seq_len_k: int


class DataclassBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.forward_metadata: Optional[StepMetadata] = None

    def _layer_cache(self, forward_batch, layer) -> LayerCache:
        pool = forward_batch.token_to_kv_pool
        return LayerCache(key=pool.get_key_buffer(layer.layer_id), value=pool.get_value_buffer(layer.layer_id), k_scale=layer.k_scale)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lc = self._layer_cache(forward_batch, layer)
        key = lc.key.to(q.dtype)  # positive: f3 CL001 dataclass field
        value = lc.value.bfloat16()  # positive: f3 CL001 dataclass field
        scale = lc.k_scale.float()  # negative: per-layer scale scalar, not the pool
        return key, value, scale

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lc = self._layer_cache(forward_batch, layer)
        md = self.forward_metadata
        pages = lc.key[md.page_table].to(q.dtype)  # negative: page-table gather first
        seqlens = md.cache_seqlens.to(torch.int32)  # negative: metadata tensor
        return pages, seqlens
