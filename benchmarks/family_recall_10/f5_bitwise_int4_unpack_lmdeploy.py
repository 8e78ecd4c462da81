"""Packed int4 caches unpacked with & and >> (whole-keeping), then converted."""
import torch


class Int4UnpackAttention:
    def __init__(self, quant_policy=4):
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None):
        if self.quant_policy != 4:
            return None
        k_lo = (k_cache & 0xF).to(query.dtype)  # positive: f5 CL001 low nibbles of the whole K cache
        k_hi = (k_cache >> 4).half()  # positive: f5 CL001 high nibbles of the whole K cache
        v_hi = torch.bitwise_right_shift(v_cache, 4).to(torch.float16)  # positive: f5 CL001 functional shift of the whole V cache
        sz = (k_scales_zeros & 0xFF).to(query.dtype)  # negative: scales/zeros
        offs = (attn_metadata.block_offsets >> 0).to(torch.int64)  # negative: block offsets
        return k_lo, k_hi, v_hi, sz, offs
