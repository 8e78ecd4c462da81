"""vLLM-style flash-attention impl; the FA2 subclass reports no FP8 KV read, so the base widens."""
import torch


class FlashAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="auto"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    @classmethod
    def supports_fp8_kv_read(cls):
        return True

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8") and not self.supports_fp8_kv_read():
            key_cache = key_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f2 CL001 reachable through the FA2 override
            value_cache = value_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f2 CL001 whole value plane
        elif self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.view(torch.float8_e4m3fn)  # negative: reinterpretation only
            value_cache = value_cache.view(torch.float8_e4m3fn)  # negative: reinterpretation only
        return self._varlen(query, key_cache, value_cache, attn_metadata)

    def _varlen(self, query, key_cache, value_cache, attn_metadata):
        return query


class FlashAttentionV2Impl(FlashAttentionImpl):
    """FA2 kernels have no FP8 KV path."""

    @classmethod
    def supports_fp8_kv_read(cls):
        return False
