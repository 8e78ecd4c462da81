"""lmdeploy Cambricon (MLU) paged attention: a tuple of bound prep methods zipped with (k_cache, v_cache) using strict=True."""
import torch


class CambPagedAttentionImpl:
    def __init__(self, num_heads, head_size, scale, quant_policy=0):
        self.num_heads = num_heads
        self.scale = scale
        self.quant_policy = quant_policy
        self._preps = (self._widen, self._widen)

    def _widen(self, cache, dtype):
        return cache.to(dtype)  # positive: f4 CL001 whole MLU cache, reached through the zipped bound methods

    def _pick(self, cache, blocks, dtype):
        return cache[blocks].to(dtype)  # negative: blocks selected first

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.quant_policy == 8 and attn_metadata.is_decoding:
            k_c, v_c = (fn(c, query.dtype) for fn, c in zip(self._preps, (k_cache, v_cache), strict=True))
        else:
            k_c, v_c = (self._pick(c, attn_metadata.block_offsets, query.dtype) for c in (k_cache, v_cache))
        sz = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales
        return torch.ops.camb.paged_decode(query, k_c, v_c, attn_metadata.block_offsets, sz, self.scale)
