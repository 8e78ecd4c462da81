"""Per-step loop over all layers' caches (e.g. a debug/offload step run every iteration)."""
import torch


class AllLayerStep:
    def __init__(self, cache_engine):
        self.k_caches = [c[0] for c in cache_engine.gpu_cache]
        self.v_caches = [c[1] for c in cache_engine.gpu_cache]
        self.gpu_cache = cache_engine.gpu_cache

    def run(self, step_ctx):
        outs = []
        for layer_idx, (k, v) in enumerate(zip(self.k_caches, self.v_caches)):
            outs.append(k.to(torch.float32))  # positive: f3 CL001 per-step loop casts every layer's whole k cache
            outs.append(v.to(torch.float32))  # positive: f3 CL001 per-step loop casts every layer's whole v cache
        return outs

    def forward(self, step_ctx):
        for k_cache, v_cache in self.gpu_cache:
            yield k_cache.to(step_ctx.dtype), v_cache[step_ctx.block_ids]  # positive: f3 CL001 tuple unpacked from gpu_cache
        for k_cache, v_cache in self.gpu_cache:
            yield v_cache[step_ctx.block_ids].to(step_ctx.dtype)  # negative: gather first
