# lmdeploy paged attention with a BHSD cache layout option: the default fallback brings
# the caches to BSHD token-major order before the torch path.
import torch


class DefaultPagedAttentionImpl:
    def __init__(self, cache_layout="bshd"):
        self.cache_layout = cache_layout

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.cache_layout == "bhsd":
            k = k_cache.transpose(1, 2).flatten(0, 1).to(query.dtype)  # positive: f5 CL001 whole key cache, BHSD to tokens
            v = v_cache.transpose(1, 2).flatten(0, 1).to(query.dtype)  # positive: f5 CL001 whole value cache, BHSD to tokens
        else:
            blocks = attn_metadata.block_offsets.flatten()
            k = k_cache[blocks].flatten(0, 1).to(query.dtype)  # negative: blocks first
            v = v_cache[blocks].flatten(0, 1).to(query.dtype)  # negative: blocks first
        return self._sdpa(query, k, v, attn_metadata)
