import torch


class FlashAttentionFP8Fallback:
    """lmdeploy prefill: flatten_kv_cache gathers rows; the no-kernel path widens first."""

    def __init__(self, has_fp8_flatten: bool):
        self.has_fp8_flatten = has_fp8_flatten

    def forward(self, query, k_cache, v_cache, attn_metadata, flatten_kv_cache):
        dt = query.dtype
        if self.has_fp8_flatten:
            return flatten_kv_cache(k_cache, v_cache, attn_metadata.kv_seqlens, attn_metadata.block_offsets, out_dtype=dt)  # negative: fused gather + cast
        k_wide = k_cache.to(dt)  # positive: f6 CL001 whole key cache widened before the flatten
        v_wide = v_cache.to(dt)  # positive: f6 CL001 whole value cache widened before the flatten
        return flatten_kv_cache(k_wide, v_wide, attn_metadata.kv_seqlens, attn_metadata.block_offsets)
