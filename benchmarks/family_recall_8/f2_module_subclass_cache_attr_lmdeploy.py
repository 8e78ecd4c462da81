import torch
from torch import nn


class CachedAttentionBase(nn.Module):
    def __init__(self):
        super().__init__()
        self.k_cache = None
        self.v_cache = None

    def bind_cache(self, k_cache, v_cache):
        self.k_cache = k_cache
        self.v_cache = v_cache


class Int8CachedAttention(CachedAttentionBase):
    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kd = self.k_cache.to(query.dtype)  # positive: f2 CL001 cache bound on the base module, whole layer
        vd = self.v_cache.type(query.dtype)  # positive: f2 CL001 whole V cache via .type
        sz = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        kk = key.to(self.k_cache.dtype)  # negative: the step's keys to store dtype
        return kd, vd, sz, kk


class CacheRunner:
    def __init__(self, model, cache_engine):
        for i, attn in enumerate(model.attns):
            attn.bind_cache(*cache_engine.gpu_cache[i])
