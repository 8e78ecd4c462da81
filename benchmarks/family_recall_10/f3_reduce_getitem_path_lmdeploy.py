"""Caches in a nested registry reached with functools.reduce(operator.getitem, path, registry)."""
import functools
import operator

import torch


class PathAttention:
    def __init__(self, cache_engine, layer_idx):
        self.registry = {
            "gpu": {"layers": [{"k": k, "v": v} for k, v in cache_engine.gpu_cache]},
            "meta": {"lens": torch.zeros(8, dtype=torch.int32)},
        }
        self.layer_idx = layer_idx

    def _at(self, *path):
        return functools.reduce(operator.getitem, path, self.registry)

    def forward(self, query, key, value, attn_metadata):
        k_cache = self._at("gpu", "layers", self.layer_idx, "k")
        k = k_cache.to(query.dtype)  # positive: f3 CL001 K cache reached by reduce(getitem) over a path
        v = self._at("gpu", "layers", self.layer_idx, "v").half()  # positive: f3 CL001 V cache by path
        lens = self._at("meta", "lens").to(torch.int64)  # negative: lengths by path
        return k, v, lens
