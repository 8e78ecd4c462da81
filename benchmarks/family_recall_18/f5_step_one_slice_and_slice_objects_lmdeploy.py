"""lmdeploy-style fallback with unusual full-extent slices: [::1] and slice(None) keep every block."""
import torch

FULL = slice(None)


class SliceSpellingFallbackImpl:
    def __init__(self, num_heads, head_dim):
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        num_used = attn_metadata.num_used_blocks
        if attn_metadata.is_decoding:
            k = k_cache[::1].to(query.dtype)  # positive: f5 CL001 step-one slice keeps every block
            v = v_cache[FULL].to(query.dtype)  # positive: f5 CL001 slice(None) keeps every block
        else:
            k = k_cache[slice(0, num_used)].to(query.dtype)  # negative: used-block prefix
            v = v_cache[slice(num_used)].to(query.dtype)  # negative: used-block prefix
        return self._paged(query, k, v, attn_metadata)

    def _paged(self, query, k, v, attn_metadata):
        return query
