"""lmdeploy dlinfer (Ascend) style attention impl upcasting the caches on the non-quant path."""
import torch


class DlinferAttentionImpl:
    def __init__(self, num_heads, head_size, quant_bits=8):
        self.num_heads = num_heads
        self.head_size = head_size
        self.quant_bits = quant_bits

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        if attn_metadata.is_decoding and self.quant_bits == 0:
            kc = k_cache.view(-1, self.num_heads * self.head_size).to(query.dtype)  # positive: f6 CL001 flattened whole K cache upcast
            vc = v_cache.view(-1, self.num_heads * self.head_size).to(query.dtype)  # positive: f6 CL001 flattened whole V cache upcast
        else:
            kc, vc = k_cache, v_cache
        starts = attn_metadata.kv_start_indices.to(torch.int64)  # negative: start indices
        offs = attn_metadata.block_offsets.to(torch.int32)  # negative: block offsets
        sz = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales/zeros
        return kc, vc, starts, offs, sz
