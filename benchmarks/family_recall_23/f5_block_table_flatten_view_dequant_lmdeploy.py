# lmdeploy fill/flatten fallback: int8 caches reshaped to tokens then dequantized with per-token scales.
import torch


class Int8FallbackImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None,
                v_scales_zeros=None, inplace=True):
        nb, bs, h, d = k_cache.shape
        k_tok = k_cache.reshape(nb * bs, h, d)
        s, z = k_scales_zeros.reshape(nb * bs, h, 2).unbind(-1)
        k_deq = (k_tok.to(query.dtype) - z[..., None]) * s[..., None]  # positive: f5 CL001 whole reshaped cache dequantized
        v_live = v_cache[attn_metadata.block_offsets].reshape(-1, h, d)
        v_deq = v_live.to(query.dtype)  # negative: live blocks selected first
        return self._attend(query, k_deq, v_deq, attn_metadata)
