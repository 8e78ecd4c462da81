# vLLM FlashInfer backend fallback for an FP8 cache with a kernel build lacking FP8 KV: the impl splits
# the layer cache into a collections.namedtuple subclass whose method widens both planes.
from collections import namedtuple

import torch


class _KVPair(namedtuple("_KVPairBase", ["key", "value"])):
    __slots__ = ()

    def widened(self, dtype: torch.dtype):
        return _KVPair(*(t.to(dtype) for t in self))  # positive: f3 CL001 both whole planes of the layer (one line)

    def first_blocks(self, block_table, dtype: torch.dtype):
        return _KVPair(*(t[block_table[:, 0]].to(dtype) for t in self))  # negative: the first block of each request


class FlashInferFallbackImpl:
    def __init__(self, kernel_has_fp8_kv: bool):
        self.kernel_has_fp8_kv = kernel_has_fp8_kv

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        pair = _KVPair(*kv_cache.unbind(1))  # [num_blocks, 2, block_size, heads, dim]
        if attn_metadata.num_decodes and not self.kernel_has_fp8_kv:
            pair = pair.widened(query.dtype)
        elif attn_metadata.num_prefills:
            pair = pair.first_blocks(attn_metadata.block_table, query.dtype)
        return self._run(query, pair.key, pair.value, attn_metadata, output)
