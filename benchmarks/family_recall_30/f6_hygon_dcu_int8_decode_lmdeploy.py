"""lmdeploy on Hygon DCU: the hipified decode kernel has no int8 KV path, so quant_policy=8 decode widens both caches."""
import torch

from lmdeploy.pytorch.backends.cuda.attention import TritonAttentionImpl


class DCUPagedAttentionImpl(TritonAttentionImpl):
    def __init__(self, num_heads, head_size, scale=None, num_kv_heads=None, quant_policy=0, **kwargs):
        super().__init__(num_heads, head_size, scale=scale, num_kv_heads=num_kv_heads, **kwargs)
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        if self.quant_policy == 8 and attn_metadata.is_decoding:
            k_deq = k_cache.to(query.dtype)  # positive: f6 CL001 whole int8 key cache
            v_deq = v_cache.to(query.dtype)  # positive: f6 CL001 whole int8 value cache
            ksz = k_scales_zeros.to(query.dtype)  # negative: scales and zeros
            vsz = v_scales_zeros.to(query.dtype)  # negative: scales and zeros
            k_deq = (k_deq - ksz[..., 1:]) * ksz[..., :1]
            v_deq = (v_deq - vsz[..., 1:]) * vsz[..., :1]
            return super().forward(query, key, value, k_deq, v_deq, attn_metadata, inplace=inplace)
        fresh = key.to(query.dtype)  # negative: new tokens
        return super().forward(query, fresh, value, k_cache, v_cache, attn_metadata, k_scales_zeros, v_scales_zeros, inplace)
