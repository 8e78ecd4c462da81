"""Blind corpus case (family_recall_8).

One attention-layer class; see the trailing comments for labels.
"""
import torch


class FullIndexAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = k_cache[...].to(query.dtype)  # positive: f5 CL001 Ellipsis index keeps the whole cache
        b = v_cache[:, ...].to(query.dtype)  # positive: f5 CL001 full slice then Ellipsis
        c = k_cache[None].float()  # positive: f5 CL001 None index adds a dim only
        d = v_cache[::1].half()  # positive: f5 CL001 unit-step full slice
        e = k_cache[slice(None)].bfloat16()  # positive: f5 CL001 explicit slice(None)
        f = k_cache[: attn_metadata.max_kv_seqlen].to(query.dtype)  # negative: bounded by the step's length
        g = k_scales_zeros[...].to(query.dtype)  # negative: scales/zeros
        return a, b, c, d, e, f, g
