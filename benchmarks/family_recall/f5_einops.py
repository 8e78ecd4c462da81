"""einops rearrange of paged caches before casting (vLLM-style paged layout)."""
import einops
import torch
from einops import rearrange

from vllm.attention.backends.abstract import AttentionImpl


class EinopsPagedImpl(AttentionImpl):
    def __init__(self, num_heads, head_size, scale, num_kv_heads, block_size=16):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        self.block_size = block_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        flat_k = rearrange(key_cache, "nb bs h d -> (nb bs) h d").to(query.dtype)  # positive: f5 CL001 rearrange of whole key cache
        flat_v = einops.rearrange(value_cache, "nb bs h d -> h (nb bs) d").float()  # positive: f5 CL001 einops.rearrange of whole value cache
        tables = attn_metadata.block_table
        live_k = rearrange(key_cache[tables], "b nb bs h d -> b (nb bs) h d").to(query.dtype)  # negative: gather of request blocks first
        q = rearrange(query, "t (h d) -> t h d", h=self.num_heads).to(key_cache.dtype)  # negative: batch query
        return flat_k, flat_v, live_k, q
