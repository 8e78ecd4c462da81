import torch


class AscendAttentionImpl:
    """Ascend paged attention; the int8 cache has no fused kernel for this head size."""

    def __init__(self, head_size, quant_policy):
        self.head_size = head_size
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.quant_policy == 8 and self.head_size not in (64, 128):
            k = (k_cache.to(query.dtype) - k_scales_zeros[..., 1:]) * k_scales_zeros[..., :1]  # positive: f6 CL001 whole int8 key cache
            v = (v_cache.to(query.dtype) - v_scales_zeros[..., 1:]) * v_scales_zeros[..., :1]  # positive: f6 CL001 whole int8 value cache
            return query, k, v
        sz = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales/zeros
        blocks = k_cache[attn_metadata.block_offsets[:, :2]].to(query.dtype)  # negative: first blocks of each seq
        return query, sz, blocks
