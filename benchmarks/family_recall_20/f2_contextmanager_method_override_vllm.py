import contextlib

import torch


class KVCacheAccess:
    @contextlib.contextmanager
    def layer_cache(self, kv_cache):
        yield kv_cache


class NoFP8KVCacheAccess(KVCacheAccess):
    def __init__(self, compute_dtype):
        self.compute_dtype = compute_dtype

    @contextlib.contextmanager
    def layer_cache(self, kv_cache):
        with super().layer_cache(kv_cache) as raw:
            yield raw.to(self.compute_dtype)  # positive: f2 CL001 the overriding context manager yields the whole layer widened


class TritonAttentionImpl:
    def __init__(self, kv_cache_dtype, model_dtype):
        self.access = KVCacheAccess() if kv_cache_dtype == "auto" else NoFP8KVCacheAccess(model_dtype)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        with self.access.layer_cache(kv_cache) as cache:
            key_cache, value_cache = cache.unbind(0)
        scale = layer._k_scale.to(torch.float32)  # negative: a scale tensor
        return key_cache, value_cache, scale
