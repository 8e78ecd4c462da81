import torch


class AiterFlashAttentionImpl:
    def __init__(self, kv_cache_dtype: str):
        self.kv_cache_dtype = kv_cache_dtype

    def split_kv_cache(self, kv_cache):
        key_cache, value_cache = kv_cache.unbind(0)
        return key_cache, value_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = self.split_kv_cache(kv_cache)
        return self.unified_attention(query, key_cache, value_cache, attn_metadata, output)


class AiterMI250FlashAttentionImpl(AiterFlashAttentionImpl):
    """MI250 (gfx90a) has no fp8 MFMA: widen the whole cache for the kernel."""

    def split_kv_cache(self, kv_cache):
        key_cache, value_cache = super().split_kv_cache(kv_cache)
        if self.kv_cache_dtype == "auto":
            return key_cache, value_cache
        return key_cache.to(torch.float16), value_cache.to(torch.float16)  # positive: f2 CL001 both whole planes widened (one finding)

    def extend(self, kv_cache, cu_blocks):
        key_cache, _ = AiterFlashAttentionImpl.split_kv_cache(self, kv_cache)
        return key_cache[cu_blocks].to(torch.float16)  # negative: blocks gathered first
