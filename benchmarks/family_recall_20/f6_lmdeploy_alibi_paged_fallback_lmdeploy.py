import torch


class AlibiPagedAttentionImpl:
    """ALiBi models (e.g. Baichuan-13B, BLOOM): the quantized ALiBi kernel is not built; widen the cache."""

    def __init__(self, num_heads, alibi_slopes, quant_policy):
        self.num_heads = num_heads
        self.alibi_slopes = alibi_slopes
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        slopes = self.alibi_slopes.to(torch.float32)  # negative: ALiBi slopes, not the cache
        if self.quant_policy in (4, 8):
            sz = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
            k_cache = (k_cache.to(query.dtype) - sz[..., 1:]) * sz[..., :1]  # positive: f6 CL001 whole int8 key cache widened for the non-quant ALiBi kernel
            v_cache = v_cache.half()  # positive: f6 CL001 whole value cache widened
        else:
            k_cache = k_cache.to(query.device)  # negative: .to(device)
        return slopes, k_cache, v_cache
