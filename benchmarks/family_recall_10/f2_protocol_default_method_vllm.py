"""A typing.Protocol with a concrete default method, explicitly subclassed and inherited."""
from typing import Protocol

import torch


class DenseSource(Protocol):
    kv_cache: torch.Tensor

    def densify(self, dtype):
        self.dense_cache = self.kv_cache.to(dtype)  # positive: f2 CL001 Protocol default method on the layer's bound cache


class LayerSource(DenseSource):
    def __init__(self, layer):
        self.kv_cache = layer.kv_cache[0]


class ProtocolDefaultImpl:
    def __init__(self, layer):
        self.source = LayerSource(layer)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.source.densify(query.dtype)
        dense = self.source.dense_cache
        qs = layer._q_scale.to(query.dtype)  # negative: q scale
        return dense, qs
