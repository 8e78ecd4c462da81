import torch


class FlashInferImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def _decode_cache(self, kv_cache: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        if self.kv_cache_dtype.startswith("fp8"):
            return kv_cache.view(torch.float8_e4m3fn)  # negative: reinterpret only
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = self._decode_cache(kv_cache, query)
        return attn_metadata.decode_wrapper.run(query, cache, out=output)


class FlashInferNoFP8Impl(FlashInferImpl):
    """Turing/Ampere parts without FP8 decode kernels."""

    def _decode_cache(self, kv_cache, query):
        cache = super()._decode_cache(kv_cache, query)
        return cache.to(query.dtype)  # positive: f2 CL001 whole paged cache from super() widened per forward

    def warm(self, kv_cache, query):
        return kv_cache[:, :1].to(query.dtype)  # negative: first block only
