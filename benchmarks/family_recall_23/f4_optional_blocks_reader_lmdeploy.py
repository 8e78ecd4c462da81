# lmdeploy: a module-level cache reader with an optional block selection; one caller omits it.
import torch


def read_cache(cache, *, dtype, blocks=None):
    if blocks is not None:
        cache = cache[blocks]
    return cache.to(dtype)  # positive: f4 CL001 whole cache when blocks is None (called so below)


class FallbackAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, **kwargs):
        key = key.to(query.dtype)  # negative: new tokens
        k = read_cache(k_cache, dtype=query.dtype)
        v = read_cache(v_cache, dtype=query.dtype, blocks=attn_metadata.block_offsets)
        return self._attend(query, k, v[:, :attn_metadata.max_kv_seqlen], attn_metadata)
