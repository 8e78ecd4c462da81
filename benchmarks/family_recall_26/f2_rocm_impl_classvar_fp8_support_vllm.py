from typing import ClassVar

import torch

from vllm.platforms import current_platform


class RocmPagedAttentionImplBase:
    SUPPORTS_FP8_KV: ClassVar[bool] = True

    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def _cache_for_kernel(self, kv_cache, query):
        if self.kv_cache_dtype.startswith("fp8"):
            kv_cache = kv_cache.view(current_platform.fp8_dtype())  # negative: reinterpret of the uint8 storage, zero copy
            if not self.SUPPORTS_FP8_KV:
                kv_cache = kv_cache.to(query.dtype)  # positive: f2 CL001 whole cache widened when a subclass clears the class flag
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = self._cache_for_kernel(kv_cache, query)
        key_cache, value_cache = cache.unbind(0)
        return self._run(query, key_cache, value_cache, attn_metadata, output)

    def _run(self, *args):
        return args


class RocmGfx90aPagedAttentionImpl(RocmPagedAttentionImplBase):
    SUPPORTS_FP8_KV = False  # MI200: no FP8 dot instructions

    def _query_for_kernel(self, query, attn_metadata):
        return query.to(torch.float16)  # negative: the query
