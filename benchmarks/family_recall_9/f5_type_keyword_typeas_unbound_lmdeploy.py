"""`.type(dtype=...)`, unbound `torch.Tensor.type_as(x, q)` and alias dtypes (`torch.half`, `torch.float`).

k_cache/v_cache are the per-layer cache arguments of the lmdeploy attention hook.
"""
import torch


class AliasSpellingAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = k_cache.type(dtype=torch.float16)  # positive: f5 CL001 `.type` with a dtype keyword
        b = torch.Tensor.type_as(v_cache, query)  # positive: f5 CL001 unbound type_as
        c = k_cache.to(torch.half)  # positive: f5 CL001 alias dtype torch.half
        d = v_cache.to(torch.float)  # positive: f5 CL001 alias dtype torch.float
        kind = k_cache.type()  # negative: returns the type string
        sz = torch.Tensor.type_as(k_scales_zeros, query)  # negative: scales/zeros
        offs = attn_metadata.block_offsets.to(torch.long)  # negative: block offsets
        return a, b, c, d, kind, sz, offs
