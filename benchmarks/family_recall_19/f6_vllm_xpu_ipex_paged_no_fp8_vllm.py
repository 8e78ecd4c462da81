import torch


class IpexAttnBackendImpl:
    """Intel XPU: ipex paged attention has no FP8 cache variant on this release."""

    def __init__(self, kv_cache_dtype, ipex_supports_fp8=False):
        self.kv_cache_dtype = kv_cache_dtype
        self.ipex_supports_fp8 = ipex_supports_fp8

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8") and not self.ipex_supports_fp8:
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 whole key plane for ipex
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 whole value plane
        if attn_metadata.num_prefills:
            ctx = key_cache[attn_metadata.block_tables[0]].to(query.dtype)  # negative: prefill blocks
            return ctx
        return key_cache, value_cache
