"""Blind corpus case (family_recall_8).

One attention-layer class; see the trailing comments for labels.
"""
import torch


class ExpandImpl:
    def __init__(self, num_heads, num_kv_heads):
        self.group = num_heads // num_kv_heads

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kx = k_cache.repeat(1, 1, self.group, 1).to(query.dtype)  # positive: f5 CL001 repeat of the whole k_cache
        vx = v_cache.expand_as(v_cache).float()  # positive: f5 CL001 expand_as itself
        st = torch.stack((k_cache, v_cache), dim=1).half()  # positive: f5 CL001 stack of both caches
        hs = torch.hstack([k_cache, v_cache]).bfloat16()  # positive: f5 CL001 hstack of both caches
        qx = query.repeat(1, 2, 1).float()  # negative: batch query
        return kx, vx, st, hs, qx
