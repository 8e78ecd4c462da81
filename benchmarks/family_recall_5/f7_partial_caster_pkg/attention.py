"""Attention forward using the package-level caster (absolute import)."""

import torch

from f7_partial_caster_pkg import to_half
from f7_partial_caster_pkg.utils import to_fp32


class PartialCastAttention:
    def __init__(self, cache_engine):
        self.gpu_cache = cache_engine.gpu_cache

    def forward(self, query, key, value, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        kh = to_half(k_cache)  # positive: f7 CL001 re-exported partial caster applied to the whole k cache
        vh = to_fp32(v_cache, non_blocking=True)  # positive: f7 CL001 partial caster from utils applied to the whole v cache
        qh = to_half(query)  # negative: batch query
        return torch.ops.lmdeploy.ref_attn(qh, kh, vh, attn_metadata.block_offsets)
