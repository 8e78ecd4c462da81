"""lmdeploy: cache readers in a dict of lambdas keyed by (quant_policy, has_kernel); an
int8 cache without an int8 kernel goes through the dequantizing lambda."""
import torch


class DispatchedPagedImpl:
    def __init__(self, quant_policy, has_int8_kernel=False):
        self.quant_policy = quant_policy
        self.has_int8_kernel = has_int8_kernel
        self._readers = {
            (8, False): lambda c, sz: (c.float() - sz[..., 1:]) * sz[..., :1],  # positive: f4 CL001 whole int8 cache dequantized
            (8, True): lambda c, sz: c,
            (0, True): lambda c, sz: c,
            (0, False): lambda c, sz: c,
        }

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        read = self._readers[(self.quant_policy, self.has_int8_kernel)]
        k_read = read(k_cache, k_scales_zeros)
        v_read = read(v_cache, v_scales_zeros)
        sz = k_scales_zeros.float() if k_scales_zeros is not None else None  # negative: scales/zeros
        return self._paged(query, k_read, v_read, sz, attn_metadata)

    def _paged(self, query, k_read, v_read, sz, attn_metadata):
        return query
