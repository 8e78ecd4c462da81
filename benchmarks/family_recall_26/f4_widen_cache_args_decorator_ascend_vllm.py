import functools

import torch


def _widen_caches(fn):
    """torch_npu's incre-flash-attention has no FP8/INT8 KV path on this CANN release."""

    @functools.wraps(fn)
    def inner(self, query, key_cache, value_cache, *args, **kwargs):
        if key_cache.dtype != query.dtype:
            key_cache, value_cache = key_cache.to(query.dtype), value_cache.to(query.dtype)  # positive: f4 CL001 whole caches widened by a decorator around the decode call (one line)
        return fn(self, query, key_cache, value_cache, *args, **kwargs)

    return inner


class AscendAttentionBackendImpl:
    def __init__(self, num_heads, head_size, scale, num_kv_heads):
        self.num_heads, self.head_size, self.scale, self.num_kv_heads = num_heads, head_size, scale, num_kv_heads

    @_widen_caches
    def _decode(self, query, key_cache, value_cache, block_tables, seq_lens):
        return query, key_cache, value_cache, block_tables, seq_lens

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        lens = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        return self._decode(query, key_cache, value_cache, attn_metadata.block_tables, lens)
