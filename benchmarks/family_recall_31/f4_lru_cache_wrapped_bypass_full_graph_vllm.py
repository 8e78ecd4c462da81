# vLLM fallback attention under a FULL cudagraph for an FP8 cache: the dense read is an lru_cache'd method,
# but the decode path calls its __wrapped__ original, so the conversion runs on every step.
import functools

import torch


class FallbackFullGraphImpl:
    def __init__(self, num_heads, head_size, dtype):
        self.num_heads = num_heads
        self.dtype = dtype

    @functools.lru_cache(maxsize=None)
    def _dense(self, kv_cache):
        return kv_cache.to(self.dtype)  # positive: f4 CL001 whole layer cache (both planes); __wrapped__ runs it every step

    def _blocks(self, kv_cache, block_table):
        return kv_cache[:, block_table].to(self.dtype)  # negative: the requests' blocks

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.max_query_len == 1:
            kv = type(self)._dense.__wrapped__(self, kv_cache)
        else:
            kv = self._blocks(kv_cache, attn_metadata.block_table)
        q = query.to(self.dtype)  # negative: the query
        return self._attend(q, kv[0], kv[1], attn_metadata, output)
