import torch

from .cache import PagedCache


class PagedCacheAttention:
    def __init__(self, cache: PagedCache, layer_idx: int):
        self.cache = cache
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, **kwargs):
        kc, _ = self.cache.layer(self.layer_idx)
        kc = kc.to(query.dtype)  # positive: f7 CL001 layer() of the cache defined in cache.py
        vc = self.cache.dequant_values(self.layer_idx)
        sz = self.cache.scales_zeros(self.layer_idx).to(query.dtype)  # negative: scales and zeros
        used = self.cache.layer(self.layer_idx)[1][attn_metadata.block_offsets[0]].to(query.dtype)  # negative: gathered blocks
        return kc, vc, sz, used
