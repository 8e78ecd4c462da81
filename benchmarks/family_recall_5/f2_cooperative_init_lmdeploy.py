"""Multiple inheritance with cooperative __init__: one base binds the caches."""

import torch


class CacheBinding:
    def __init__(self, cache_engine=None, **kwargs):
        self.layer_caches = cache_engine.gpu_cache
        super().__init__(**kwargs)


class ScratchBinding:
    def __init__(self, max_batch=64, head_dim=128, **kwargs):
        self.scratch = torch.empty(max_batch, head_dim, dtype=torch.float16, device="cuda")
        super().__init__(**kwargs)


class DtypeBinding:
    def __init__(self, compute_dtype=torch.float32, **kwargs):
        self.compute_dtype = compute_dtype
        super().__init__(**kwargs)


class CoopAttention(CacheBinding, ScratchBinding, DtypeBinding):
    def __init__(self, cache_engine, layer_idx):
        super().__init__(cache_engine=cache_engine, max_batch=64, head_dim=128)
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.layer_caches[self.layer_idx]
        kd = k_cache.to(self.compute_dtype)  # positive: f2 CL001 caches bound by a cooperative base __init__, whole k cache cast
        vd = v_cache.to(self.compute_dtype)  # positive: f2 CL001 whole v cache of the same layer
        sd = self.scratch.to(self.compute_dtype)  # negative: 64-row scratch from the sibling base
        qd = query.to(self.compute_dtype)  # negative: batch query
        return torch.ops.lmdeploy.ref_paged_attn(qd, kd, vd, sd, attn_metadata.block_offsets)
