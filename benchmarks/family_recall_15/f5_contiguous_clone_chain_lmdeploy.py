import torch


class FlashAttentionImplNoFp8:
    def __init__(self, num_heads, head_size, dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.dtype = dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_dense = k_cache.contiguous().clone().to(self.dtype)  # positive: f5 CL001 clone chain then cast, still the whole cache
        v_dense = v_cache.transpose(1, 2).contiguous().to(self.dtype)  # positive: f5 CL001 transpose keeps every slot
        k_copy = k_cache.clone()  # negative: same-dtype copy
        v_host = v_cache.detach().cpu()  # negative: device move only
        offs = attn_metadata.block_offsets
        k_live = k_cache[offs].contiguous().clone().to(self.dtype)  # negative: gathered blocks
        sz = k_scales_zeros.float() if k_scales_zeros is not None else None  # negative: scales/zeros, not KV data
        return self._attn(query, k_dense, v_dense, k_copy, v_host, k_live, sz)

    def _attn(self, q, *xs):
        return q
