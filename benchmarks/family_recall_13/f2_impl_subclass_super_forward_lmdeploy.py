import torch


class TritonAttentionImpl:
    def __init__(self, num_heads, head_size, scale, v_head_size=None, quant_policy=0):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        return query


class Fp8UnsupportedAttentionImpl(TritonAttentionImpl):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        if k_cache.dtype != query.dtype:
            k_cache = k_cache.to(query.dtype)  # positive: f2 CL001 subclass upcasts the whole layer cache before super().forward
            v_cache = v_cache.to(query.dtype)  # positive: f2 CL001 subclass upcasts the whole layer cache before super().forward
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.float()  # negative: scales and zeros, small
        key = key.to(query.dtype)  # negative: the step's keys
        return super().forward(query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros, v_scales_zeros, inplace)


class AttentionBuilder:
    @staticmethod
    def build(num_heads, head_size, scale, fp8_native=True, **kwargs):
        cls = TritonAttentionImpl if fp8_native else Fp8UnsupportedAttentionImpl
        return cls(num_heads, head_size, scale, **kwargs)
