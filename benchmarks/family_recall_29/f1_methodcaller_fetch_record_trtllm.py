"""TensorRT-LLM attention: a per-layer record stores operator.methodcaller("get_buffers", idx)."""
import operator
from dataclasses import dataclass
from typing import Callable

import torch


@dataclass
class _LayerFetch:
    layer_idx: int
    fetch: Callable

    @classmethod
    def for_layer(cls, layer_idx: int) -> "_LayerFetch":
        return cls(layer_idx, operator.methodcaller("get_buffers", layer_idx))


class SM75FallbackAttention:
    def __init__(self, layer_idx: int, dtype=torch.float16):
        self.record = _LayerFetch.for_layer(layer_idx)
        self.dtype = dtype

    def forward(self, q, k, v, metadata):
        buf = self.record.fetch(metadata.kv_cache_manager)
        dense = buf.to(self.dtype)  # positive: f1 CL001 whole layer buffer fetched through the stored methodcaller
        new_k = k.to(self.dtype)  # negative: new tokens
        ids = metadata.kv_cache_block_offsets[0].flatten()
        hist = buf[ids].to(self.dtype)  # negative: blocks gathered first
        return self._reference(q, new_k, dense, hist, metadata)
