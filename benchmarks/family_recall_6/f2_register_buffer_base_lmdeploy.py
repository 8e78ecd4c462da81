"""A base module registers the shared caches as non-persistent buffers; subclasses read them."""
import torch
from torch import nn


class CachedAttentionBase(nn.Module):
    def __init__(self, layer_idx, k_cache, v_cache, k_sz, v_sz):
        super().__init__()
        self.layer_idx = layer_idx
        self.register_buffer("k_cache", k_cache, persistent=False)
        self.register_buffer("v_cache", v_cache, persistent=False)
        self.register_buffer("k_scales_zeros", k_sz, persistent=False)
        self.register_buffer("v_scales_zeros", v_sz, persistent=False)


class Int8KVAttention(CachedAttentionBase):
    def forward(self, query, attn_metadata):
        kf = self.k_cache.to(query.dtype)  # positive: f2 CL001 the whole key cache registered by the base
        vf = getattr(self, "v_cache").half()  # positive: f2 CL001 the whole value cache, getattr with a constant
        ks = self.k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        part = self.v_cache[attn_metadata.block_offsets].to(query.dtype)  # negative: gather-then-cast
        return kf, vf, ks, part


def build_layers(cache_engine, n):
    return [
        Int8KVAttention(i, *cache_engine.gpu_cache[i], *cache_engine.scales_zeros[i])
        for i in range(n)
    ]
