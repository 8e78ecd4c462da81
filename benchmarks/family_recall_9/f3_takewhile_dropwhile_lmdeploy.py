"""itertools.takewhile / dropwhile over (layer index, cache pair) of the engine's gpu_cache."""
import itertools

import torch


class SplitLayersAttention:
    def __init__(self, cache_engine, boundary):
        self.cache_engine = cache_engine
        self.boundary = boundary

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        indexed = enumerate(self.cache_engine.gpu_cache)
        head = list(itertools.takewhile(lambda p: p[0] < self.boundary, indexed))
        _, (k0, v0) = head[0]
        k0_up = k0.to(query.dtype)  # positive: f3 CL001 K cache of a layer kept by takewhile
        rest = itertools.dropwhile(lambda p: p[0] < self.boundary, enumerate(self.cache_engine.gpu_cache))
        for _, (kc, vc) in rest:
            vc_up = vc.half()  # positive: f3 CL001 V cache of every layer past the boundary
        offs = list(itertools.takewhile(lambda o: o >= 0, attn_metadata.block_offsets.tolist()))
        offs_t = torch.tensor(offs).to(torch.int32)  # negative: block offsets
        sz = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        return k0_up, vc_up, offs_t, sz
