import torch


def _cache_and_target(kv_cache: torch.Tensor, kv_cache_dtype: str, model_dtype: torch.dtype):
    if kv_cache_dtype.startswith("fp8"):
        return kv_cache, model_dtype
    return kv_cache, kv_cache.dtype


class TritonMLAFallbackImpl:
    def __init__(self, kv_cache_dtype, model_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.model_dtype = model_dtype

    def forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache, target = _cache_and_target(kv_c_and_k_pe_cache, self.kv_cache_dtype, self.model_dtype)
        dense = cache.to(target)  # positive: f4 CL001 dtype arrives from a helper's returned pair
        rows = cache[attn_metadata.decode.block_table].to(target)  # negative: blocks first
        q_t = q.to(target)  # negative: query
        return dense, rows, q_t
