"""Caches fetched with object.__getattribute__ past a holder's own __getattribute__ guard."""
import torch


class GuardedHolder:
    def __init__(self, gpu_cache):
        object.__setattr__(self, "_caches", gpu_cache)
        object.__setattr__(self, "lens", torch.zeros(8, dtype=torch.int32))

    def __getattribute__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)


class GuardedAttention:
    def __init__(self, cache_engine, layer_idx):
        self.holder = GuardedHolder(cache_engine.gpu_cache)
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        caches = object.__getattribute__(self.holder, "_caches")
        k_cache, v_cache = caches[self.layer_idx]
        k = k_cache.float()  # positive: f1 CL001 whole K cache fetched past __getattribute__
        v = v_cache.to(query.dtype)  # positive: f1 CL001 whole V cache fetched past __getattribute__
        lens = self.holder.lens.to(torch.int64)  # negative: lengths
        return k, v, lens
