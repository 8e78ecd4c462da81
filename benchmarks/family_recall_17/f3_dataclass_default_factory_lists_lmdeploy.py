"""lmdeploy: a record dataclass with default_factory lists collects the cache engine's
tensors at build time; the step hook widens every entry for the reference kernel."""
from dataclasses import dataclass, field

import torch


@dataclass
class LayerCacheSet:
    keys: list = field(default_factory=list)
    values: list = field(default_factory=list)
    scales: list = field(default_factory=list)


class RefKernelStep:
    def __init__(self, cache_engine):
        self.caches = LayerCacheSet()
        for k_cache, v_cache in cache_engine.gpu_cache:
            self.caches.keys.append(k_cache)
            self.caches.values.append(v_cache)
            self.caches.scales.append(torch.ones(1, device=k_cache.device))

    def update_step_context(self, step_ctx):
        step_ctx.kv_caches = [
            (k.float(), v.float())  # positive: f3 CL001 every layer's whole key and value cache, each step
            for k, v in zip(self.caches.keys, self.caches.values)
        ]
        step_ctx.kv_scales = [s.float() for s in self.caches.scales]  # negative: scales
        return step_ctx
