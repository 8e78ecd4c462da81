import torch


class TritonAttentionImpl:
    def __init__(self, num_heads, head_size, quant_policy=0):
        self.num_heads = num_heads
        self.head_size = head_size
        self.quant_policy = quant_policy

    def _caches(self, k_cache, v_cache, dtype):
        return k_cache, v_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_cache, v_cache = self._caches(k_cache, v_cache, query.dtype)
        return self.paged_attention_fwd(query, k_cache, v_cache, attn_metadata)


class FallbackAttentionImpl(TritonAttentionImpl):
    def _caches(self, k_cache, v_cache, dtype):
        if k_cache.dtype == torch.float8_e4m3fn:
            return k_cache.to(dtype), v_cache.to(dtype)  # positive: f2 CL001 both whole caches widened (one line, one finding)
        return super()._caches(k_cache, v_cache, dtype)


class FallbackAttentionBuilder:
    @staticmethod
    def build(num_heads, head_size, quant_policy=0, **kwargs):
        zeros = torch.zeros(1, dtype=torch.float16)  # negative: fresh tensor
        return FallbackAttentionImpl(num_heads, head_size, quant_policy), zeros
