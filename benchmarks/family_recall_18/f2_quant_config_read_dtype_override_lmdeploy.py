"""lmdeploy-style impl whose cache read dtype comes from a quant config method; a subclass config widens."""
import torch


class KVQuantConfig:
    def __init__(self, quant_policy):
        self.quant_policy = quant_policy

    def cache_dtype(self):
        return {0: torch.float16, 4: torch.uint8, 8: torch.uint8}[self.quant_policy]

    def read_dtype(self, act_dtype):
        return None  # the paged kernels read the stored format


class NoInt8KernelQuantConfig(KVQuantConfig):
    """Platforms whose paged kernel has no int8 path: dequantize before attention."""

    def read_dtype(self, act_dtype):
        return act_dtype if self.quant_policy == 8 else None


class TritonPagedAttentionImpl:
    def __init__(self, quant_config: KVQuantConfig, num_heads, head_dim):
        self.quant_config = quant_config
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        read_dtype = self.quant_config.read_dtype(query.dtype)
        if read_dtype is not None:
            k_cache = (k_cache.to(read_dtype) - k_scales_zeros[..., 1:]) * k_scales_zeros[..., :1]  # positive: f2 CL001 whole int8 key cache dequantized
            v_cache = (v_cache.to(read_dtype) - v_scales_zeros[..., 1:]) * v_scales_zeros[..., :1]  # positive: f2 CL001 whole int8 value cache dequantized
            k_sz = k_scales_zeros.to(read_dtype)  # negative: scales and zeros, not the cache
            return self._paged(query, k_cache, v_cache, attn_metadata, k_sz)
        return self._paged(query, k_cache, v_cache, attn_metadata, None)

    def _paged(self, query, k_cache, v_cache, attn_metadata, k_sz):
        return query


def build_impl(device_has_int8_kernel, quant_policy, num_heads, head_dim):
    cfg_cls = KVQuantConfig if device_has_int8_kernel else NoInt8KernelQuantConfig
    return TritonPagedAttentionImpl(cfg_cls(quant_policy), num_heads, head_dim)
