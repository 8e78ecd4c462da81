"""Three-level accessor chain where the middle class calls super() and reshapes the return."""
import torch


class CacheAccessBase:
    def __init__(self, cache_engine, layer_idx):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx

    def get_cache(self, layer_idx):
        return self.cache_engine.gpu_cache[layer_idx]


class SplitCacheAccess(CacheAccessBase):
    def get_cache(self, layer_idx):
        k, v = super().get_cache(layer_idx)
        return k, v


class ScaledCacheAccess(SplitCacheAccess):
    def __init__(self, cache_engine, layer_idx, scales):
        super().__init__(cache_engine, layer_idx)
        self.scales = scales

    def get_cache(self, layer_idx):
        k, v = super().get_cache(layer_idx)
        return k, v, self.scales[layer_idx]


class GatheringCacheAccess(SplitCacheAccess):
    def get_cache(self, layer_idx, block_offsets=None):
        k, v = super().get_cache(layer_idx)
        return k[block_offsets], v[block_offsets]


class MiddleSuperAttention(ScaledCacheAccess):
    def forward(self, query, key, value, attn_metadata, **kwargs):
        k, v, s = self.get_cache(self.layer_idx)
        k = k.to(query.dtype)  # positive: f2 CL001 whole k cache through two super() hops
        s = s.to(query.dtype)  # negative: per-layer scale
        v = v.type(torch.float16)  # positive: f2 CL001 whole v cache through two super() hops
        return self._attn(query, k, v, s, attn_metadata)

    def _attn(self, query, k, v, s, attn_metadata):
        return torch.empty_like(query)


class GatheredAttention(GatheringCacheAccess):
    def forward(self, query, key, value, attn_metadata, **kwargs):
        k, v = self.get_cache(self.layer_idx, attn_metadata.block_offsets.flatten())
        k = k.to(query.dtype)  # negative: the override gathers the step's blocks
        v = v.to(query.dtype)  # negative: same
        return k, v
