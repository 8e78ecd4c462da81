"""lmdeploy-style: the agent hands the cache engine to every attention module with Module.apply."""
import torch
from torch import nn


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim, dtype=torch.float8_e4m3fn):
        shape = (num_blocks, block_size, heads, dim)
        self.gpu_cache = [(torch.empty(shape, dtype=dtype), torch.empty(shape, dtype=dtype)) for _ in range(num_layers)]


class DecodeAttention(nn.Module):
    cache_engine = None

    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, block_offsets):
        k_cache, v_cache = self.cache_engine.gpu_cache[self.layer_idx]
        k = k_cache.half()  # positive: f1 CL001 cache engine reached through the attribute set by apply()
        used = v_cache[block_offsets.flatten()].half()  # negative: blocks of this batch only
        return query, k, used


class ModelAgent:
    def __init__(self, model: nn.Module, cache_engine: CacheEngine):
        self.model = model
        self.cache_engine = cache_engine
        model.apply(lambda m: setattr(m, "cache_engine", cache_engine) if isinstance(m, DecodeAttention) else None)
        warm_k, _ = cache_engine.gpu_cache[0]
        self._probe = warm_k.half().abs().max()  # negative: one-time probe in __init__

    def _async_model_forward(self, inputs, block_offsets):
        return self.model(inputs, block_offsets)
