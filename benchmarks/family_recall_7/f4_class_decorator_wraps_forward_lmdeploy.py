"""f4: a class decorator wraps an impl's forward and upcasts the caches it is handed."""
import functools

import torch


def upcast_caches(cls):
    orig = cls.forward

    @functools.wraps(orig)
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, *args, **kwargs):
        k_cache = k_cache.to(query.dtype)  # positive: f4 CL001 wrapper of forward converts the whole k_cache
        v_cache = v_cache.to(query.dtype)  # positive: f4 CL001 and the whole v_cache
        return orig(self, query, key, value, k_cache, v_cache, attn_metadata, *args, **kwargs)

    cls.forward = forward
    return cls


@upcast_caches
class PagedImpl:
    def __init__(self, num_heads, head_size, block_size):
        self.num_heads = num_heads
        self.head_size = head_size
        self.block_size = block_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        seqlens = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        offsets = attn_metadata.block_offsets.long()  # negative: block offsets
        return query, k_cache, v_cache, seqlens, offsets
