"""Blind corpus case (family_recall_8).

One attention-layer class; see the trailing comments for labels.
"""
import torch


class ShapeOpsImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_half = kv_cache.unbind(0)[0]
        a = k_half.unflatten(-1, (8, -1)).to(query.dtype)  # positive: f5 CL001 unflatten of every block's K
        b = kv_cache.unsqueeze(0).squeeze(0).half()  # positive: f5 CL001 unsqueeze/squeeze round trip
        c = kv_cache.view_as(kv_cache).bfloat16()  # positive: f5 CL001 view_as itself
        d = torch.squeeze(kv_cache[:1], 0).float()  # positive: f5 CL001 K half via a [:1] slice of the leading K/V dim and squeeze
        e = kv_cache.view(torch.uint8)  # negative: reinterpret
        f = query.unflatten(-1, (8, -1)).float()  # negative: batch query
        return a, b, c, d, e, f
