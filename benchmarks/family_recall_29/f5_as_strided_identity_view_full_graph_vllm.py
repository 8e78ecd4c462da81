"""vLLM FULL cudagraph fallback: torch.as_strided with the cache's own size/stride is the whole layer."""
import torch


class StridedFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k_view = torch.as_strided(key_cache, key_cache.size(), key_cache.stride())
        k = k_view.to(query.dtype)  # positive: f5 CL001 same size and stride: every block of the key cache
        v = value_cache.as_strided(value_cache.size(), value_cache.stride()).to(query.dtype)  # positive: f5 CL001 method form, whole value cache
        n = attn_metadata.num_used_blocks
        prefix = key_cache.as_strided((n, *key_cache.shape[1:]), key_cache.stride()).to(query.dtype)  # negative: first n blocks only
        return self._kernel(query, k, v, prefix, attn_metadata, output)


class StridedCudaGraphWrapper:
    def __init__(self, runnable, kv_caches):
        self.runnable = runnable
        self.static = [torch.empty_like(c, dtype=torch.bfloat16) for c in kv_caches]  # negative: capture allocation

    def __call__(self, *args, **kwargs):
        self.graph.replay()
        return self.output
