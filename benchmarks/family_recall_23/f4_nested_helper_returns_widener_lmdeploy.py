# lmdeploy Ascend-style backend without FP8 decode: a method returns a closure that widens a cache.
import torch


class AscendFallbackImpl:
    def _make_widener(self, dtype):
        def widen(cache):
            return cache.to(dtype)  # positive: f4 CL001 whole cache converted inside the returned closure
        return widen

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, **kwargs):
        widen = self._make_widener(query.dtype)
        k_cache = widen(k_cache)
        key = key.to(query.dtype)  # negative: new tokens
        return self._decode(query, k_cache, v_cache, attn_metadata)
