"""Integer widening of a packed int4/int8 cache (quant_policy 4/8): `.to(int32)`, `.int()`, `.short()`."""
import torch


class PackedCacheAttention:
    def __init__(self, quant_policy=4):
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.quant_policy == 4:
            kw = k_cache.to(torch.int32)  # positive: f5 CL001 whole packed K cache widened to int32
            lo = (v_cache.int() & 0xF).to(query.dtype)  # positive: f5 CL001 whole packed V cache widened by .int()
            return kw, lo
        ks = k_cache.short()  # positive: f5 CL001 whole int8 K cache widened by .short()
        raw = v_cache.view(torch.uint8)  # negative: reinterpret
        offs = attn_metadata.block_offsets.long()  # negative: block offsets
        ids = attn_metadata.kv_seqlens.int()  # negative: lengths
        return ks, raw, offs, ids
