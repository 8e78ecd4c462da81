"""Attention impl: caches arrive in forward and are dequantized by a function looked up by quant policy."""
from . import kv_quant


class NoQuantKernelAttentionImpl:
    def __init__(self, num_heads, head_dim, quant_policy):
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        dequant = kv_quant.DEQUANT[self.quant_policy]
        if attn_metadata.is_decoding:
            k = dequant(k_cache, k_scales_zeros, query.dtype)
            v = dequant(v_cache, v_scales_zeros, query.dtype)
        else:
            blocks = attn_metadata.block_offsets.flatten()
            k = kv_quant.dequant_blocks(k_cache, k_scales_zeros, blocks, query.dtype)
            v = kv_quant.dequant_blocks(v_cache, v_scales_zeros, blocks, query.dtype)
        return self._attend(query, k, v, attn_metadata)

    def _attend(self, query, k, v, attn_metadata):
        return query
