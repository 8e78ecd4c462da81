"""vLLM ROCm attention on RDNA3 (gfx1100): no fp8 decode kernel, so the whole cache is widened."""
import torch

from vllm.platforms import current_platform


class ROCmAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads, self.head_size, self.scale = num_heads, head_size, scale
        self.kv_cache_dtype = kv_cache_dtype
        self.fp8_decode = current_platform.get_device_capability()[0] >= 9

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8") and not self.fp8_decode:
            key_cache = key_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole key cache widened on gfx1100
            value_cache = value_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole value cache
        elif self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.view(torch.float8_e4m3fnuz)  # negative: reinterpret only
        k_scale = layer._k_scale.to(torch.float32)  # negative: scale
        query = query.to(torch.float16) if query.dtype == torch.float32 else query  # negative: the query
        return self._paged_attention(query, key_cache, value_cache, k_scale, attn_metadata, output)
