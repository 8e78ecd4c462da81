# lmdeploy: the KV quant policy object hands back the dequant callable (an unbound tensor
# method, or None when the kernel reads the cache natively).
import torch


class KVQuantPolicy:
    def __init__(self, kv_cache_dtype, device_capability):
        self.kv_cache_dtype = kv_cache_dtype
        self.native = device_capability >= (8, 9)

    def dequant_fn(self):
        if self.kv_cache_dtype == torch.float8_e4m3fn and not self.native:
            return torch.Tensor.half
        return None


class FlashAttentionImpl:
    def __init__(self, policy: KVQuantPolicy):
        self.policy = policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        fn = self.policy.dequant_fn()
        if fn is not None:
            k_cache = fn(k_cache)  # positive: f4 CL001 whole key cache through the returned unbound method
            v_cache = fn(v_cache)  # positive: f4 CL001 whole value cache through the returned unbound method
            k_scales_zeros = fn(k_scales_zeros)  # negative: scales
        return self._flash_decode(query, k_cache, v_cache, attn_metadata, k_scales_zeros, v_scales_zeros)
