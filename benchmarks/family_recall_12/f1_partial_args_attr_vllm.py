import functools

import torch


def _decode_kernel(kv_cache, query, block_table):
    return query


class PartialArgsImpl:
    def __init__(self, num_heads, head_size, scale):
        self.scale = scale
        self._bound = None

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self._bound = functools.partial(_decode_kernel, kv_cache)
        return self._decode(query, attn_metadata)

    def _decode(self, query, attn_metadata):
        cache = self._bound.args[0]
        dense = cache.to(query.dtype)  # positive: f1 CL001 kv_cache read back from a partial's args
        bt = attn_metadata.block_table.to(torch.int64)  # negative: block table
        dtype_only = cache.view(torch.uint8)  # negative: reinterpret
        return self._bound.func(dense, query, bt), dtype_only
