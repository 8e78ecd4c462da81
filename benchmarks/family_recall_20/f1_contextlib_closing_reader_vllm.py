import contextlib

import torch


class DenseCacheReader:
    """Reads a vLLM paged kv_cache ([2, num_blocks, block_size, heads, dim]) in the model dtype."""

    def __init__(self, kv_cache, dtype):
        self.kv_cache = kv_cache
        self.dtype = dtype
        self._opened = True

    def read(self):
        key_cache, value_cache = self.kv_cache.unbind(0)
        return key_cache.to(self.dtype), value_cache.to(self.dtype)  # positive: f1 CL001 both whole planes converted by the reader built from the cache

    def read_blocks(self, block_table):
        return self.kv_cache[:, block_table].to(self.dtype)  # negative: blocks selected before the cast

    def close(self):
        self._opened = False


class TorchSDPAFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        with contextlib.closing(DenseCacheReader(kv_cache, query.dtype)) as reader:
            k_all, v_all = reader.read()
            recent = reader.read_blocks(attn_metadata.block_table[:, -1])
        return k_all, v_all, recent, key.to(query.dtype)  # negative: the step's own key tensor, not the cache
