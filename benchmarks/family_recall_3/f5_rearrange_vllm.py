import torch
from einops import rearrange


class EinopsImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        flat = rearrange(kv_cache, "two b s h d -> b s (two h d)").to(query.dtype)  # positive: f5 CL001 rearranged whole kv_cache cast
        k_cache = rearrange(kv_cache[0], "b s h d -> (b s) h d")
        k_cache = k_cache.to(query.dtype)  # positive: f5 CL001 rearranged whole key plane
        q = rearrange(query, "t (h d) -> t h d", h=8).float()  # negative: query
        return flat, k_cache, q
