"""Differential attention: two caches per layer, upcast when FP8 FlashAttention is missing."""
import torch


class DifferentialFlashAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype, fa_fp8_ok):
        self.kv_cache_dtype = kv_cache_dtype
        self.fa_fp8_ok = fa_fp8_ok
        self.scale = scale

    def split_kv_cache(self, kv_cache):
        return kv_cache[0], kv_cache[1]

    def forward(self, layer, q, k, v, kv_cache, attn_metadata, output=None):
        cache1, cache2 = self.split_kv_cache(kv_cache)
        if self.kv_cache_dtype.startswith("fp8") and not self.fa_fp8_ok:
            cache1 = cache1.to(q.dtype)  # positive: f6 CL001 whole first-group cache
            cache2 = cache2.to(q.dtype)  # positive: f6 CL001 whole second-group cache
        lambda_full = (layer.lambda_q1 * layer.lambda_k1).sum().float()  # negative: parameters
        k_cache1, v_cache1 = cache1.unbind(0)
        k_cache2, v_cache2 = cache2.unbind(0)
        o1 = self._flash(q, k_cache1, v_cache1, attn_metadata)
        o2 = self._flash(q, k_cache2, v_cache2, attn_metadata)
        return (o1 - lambda_full.to(o1.dtype) * o2).to(q.dtype)  # negative: outputs
