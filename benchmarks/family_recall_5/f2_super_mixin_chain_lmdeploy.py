"""A cooperative super() chain through mixins around a cache fetch."""

import torch


class FetchBase:
    def fetch(self, layer_idx):
        return self.cache_engine.gpu_cache[layer_idx][0]


class ContiguousMixin:
    def fetch(self, layer_idx):
        return super().fetch(layer_idx).contiguous()


class FlattenBlocksMixin:
    def fetch(self, layer_idx):
        t = super().fetch(layer_idx)
        return t.flatten(0, 1)


class FirstBlocksMixin:
    def fetch(self, layer_idx):
        return super().fetch(layer_idx)[: self.live_blocks]


class ChainAttention(ContiguousMixin, FlattenBlocksMixin, FetchBase):
    def __init__(self, cache_engine, dtype=torch.float16):
        self.cache_engine = cache_engine
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata, layer_idx):
        flat = self.fetch(layer_idx)
        fd = flat.to(self.dtype)  # positive: f2 CL001 mixin chain (contiguous, flatten) keeps the whole k cache
        kd = key.to(self.dtype)  # negative: batch key
        return torch.ops.lmdeploy.flat_attn(query, kd, fd, attn_metadata.kv_seqlens)


class LiveChainAttention(ContiguousMixin, FirstBlocksMixin, FetchBase):
    def __init__(self, cache_engine, live_blocks, dtype=torch.float16):
        self.cache_engine = cache_engine
        self.live_blocks = live_blocks
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata, layer_idx):
        part = self.fetch(layer_idx).to(self.dtype)  # negative: one mixin in the chain keeps only the live blocks
        return torch.ops.lmdeploy.flat_attn(query, key, part, attn_metadata.kv_seqlens)
