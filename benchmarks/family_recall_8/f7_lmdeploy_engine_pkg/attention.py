import torch

from .cache_engine import CacheEngine


class EngineAttention:
    def __init__(self, layer_idx, engine: CacheEngine):
        self.layer_idx = layer_idx
        self.engine = engine

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.engine.gpu_cache[self.layer_idx]
        kd = k_cache.to(query.dtype)  # positive: f7 CL001 gpu_cache from cache_engine.py
        vd = v_cache.half()  # positive: f7 CL001 V cache of the same layer
        sz = self.engine.scales[self.layer_idx].to(query.dtype)  # negative: scales/zeros
        return kd, vd, sz
