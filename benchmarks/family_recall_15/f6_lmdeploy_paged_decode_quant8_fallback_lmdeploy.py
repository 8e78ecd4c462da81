import torch


class TritonPagedAttentionImpl:
    def __init__(self, num_heads, head_size, quant_policy, has_int8_decode_kernel):
        self.num_heads = num_heads
        self.head_size = head_size
        self.quant_policy = quant_policy
        self.has_int8_decode_kernel = has_int8_decode_kernel

    def _dequant(self, cache, scales_zeros, dtype):
        scale, zero = scales_zeros[..., 0], scales_zeros[..., 1]
        return ((cache.to(torch.float32) - zero.unsqueeze(-1)) * scale.unsqueeze(-1)).to(dtype)  # positive: f6 CL001 helper only ever gets whole int8 caches

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if attn_metadata.is_decoding and self.quant_policy == 8 and not self.has_int8_decode_kernel:
            k_cache = self._dequant(k_cache, k_scales_zeros, query.dtype)
            v_cache = self._dequant(v_cache, v_scales_zeros, query.dtype)
        zeros = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales/zeros
        k_new = key.to(query.dtype)  # negative: step keys
        return self._paged(query, k_cache, v_cache, zeros, k_new)

    def _paged(self, q, *xs):
        return q
