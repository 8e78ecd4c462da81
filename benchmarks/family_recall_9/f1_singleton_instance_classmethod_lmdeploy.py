"""A cache hub reached through a lazily created `Hub.instance()` classmethod singleton."""
import torch


class CacheHub:
    _inst = None

    def __init__(self):
        self.gpu_cache = []
        self.block_offsets = None

    @classmethod
    def instance(cls):
        if cls._inst is None:
            cls._inst = cls()
        return cls._inst

    def bind(self, cache_engine):
        self.gpu_cache = cache_engine.gpu_cache


class HubAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        hub = CacheHub.instance()
        k_cache, v_cache = hub.gpu_cache[self.layer_idx]
        k_up = k_cache.to(query.dtype)  # positive: f1 CL001 K cache from the singleton hub
        v_up = CacheHub.instance().gpu_cache[self.layer_idx][1].half()  # positive: f1 CL001 V cache inline through instance()
        offs = hub.block_offsets.to(torch.int64)  # negative: block offsets
        return query, k_up, v_up, offs
