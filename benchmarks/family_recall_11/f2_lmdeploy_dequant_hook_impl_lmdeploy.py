import torch


class TritonAttentionImplBase:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        q_seqlens = attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths
        if attn_metadata.quant_policy == 0:
            return query, k_cache, v_cache, q_seqlens
        k_dense = self._dequant(k_cache, k_scales_zeros)
        v_dense = self._dequant(v_cache, v_scales_zeros)
        return query, k_dense, v_dense, q_seqlens

    def _dequant(self, cache, scales_zeros):
        raise NotImplementedError


class Int8FallbackImpl(TritonAttentionImplBase):
    def _dequant(self, cache, scales_zeros):
        sz = scales_zeros.to(torch.float16)  # negative: scales/zeros
        return (cache.to(torch.float16) - sz[..., 1:]) * sz[..., :1]  # positive: f2 CL001 whole int8 K/V cache dequantized in the subclass hook
