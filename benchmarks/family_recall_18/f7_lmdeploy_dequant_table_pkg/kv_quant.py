"""Dequant helpers keyed by quant policy (8: int8, 4: packed int4); block helper gathers first."""
import torch


def _int8(cache, scales_zeros, dtype):
    return (cache.to(dtype) - scales_zeros[..., 1:]) * scales_zeros[..., :1]  # positive: f7 CL001 table entry called from attention.forward with whole caches


def _int4(cache, scales_zeros, dtype):
    lo = (cache & 0xF).to(dtype)  # positive: f7 CL001 low nibbles of every block
    hi = (cache >> 4).to(dtype)  # positive: f7 CL001 high nibbles of every block
    vals = torch.stack((lo, hi), dim=-1).flatten(-2)
    return (vals - scales_zeros[..., 1:]) * scales_zeros[..., :1]


def dequant_blocks(cache, scales_zeros, blocks, dtype):
    sel = cache[blocks]
    return (sel.to(dtype) - scales_zeros[blocks][..., 1:]) * scales_zeros[blocks][..., :1]  # negative: the batch's blocks


DEQUANT = {8: _int8, 4: _int4}
