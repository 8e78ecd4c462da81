"""Copies into other-dtype allocations: new_empty(..., dtype=).copy_(x), empty_strided + copy_.

The copy_ line is the conversion; a same-dtype copy and a lone allocation are look-alikes.
"""
import torch


class StridedCopyImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = kv_cache.new_empty(kv_cache.shape, dtype=torch.float16).copy_(kv_cache)  # positive: f5 CL001 new_empty of another dtype filled from the whole cache
        dst = torch.empty_strided(kv_cache.size(), kv_cache.stride(), dtype=query.dtype, device=kv_cache.device)
        dst.copy_(kv_cache)  # positive: f5 CL001 empty_strided of the query dtype filled from the whole cache
        b = kv_cache.to(torch.device("cuda"), torch.bfloat16)  # positive: f5 CL001 device object plus dtype
        same = kv_cache.new_empty(kv_cache.shape)
        same.copy_(kv_cache)  # negative: same-dtype copy
        scratch = torch.empty_strided((8, 16), (16, 1), dtype=query.dtype)  # negative: allocation only
        return a, dst, b, same, scratch
