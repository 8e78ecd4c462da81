import torch


class HPUAttentionImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype, fp8_fused_sdpa):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype
        self.fp8_fused_sdpa = fp8_fused_sdpa

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache
        if self.kv_cache_dtype.startswith("fp8") and not self.fp8_fused_sdpa:
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 HPU path without FP8 fused SDPA widens the key cache
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 and the value cache
        blocks = attn_metadata.block_list
        k_sel = key_cache.index_select(0, blocks)
        v_sel = value_cache.index_select(0, blocks).to(query.dtype)  # negative: index_select gather
        bias = attn_metadata.attn_bias.to(query.dtype) if attn_metadata.attn_bias is not None else None  # negative: bias
        return self._pa(query, k_sel, v_sel, bias)

    def _pa(self, q, k, v, bias):
        return q
