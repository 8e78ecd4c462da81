# einops.rearrange over paged caches before a conversion.
import einops
import torch
from einops import rearrange as rr


class EinopsPagedBackend:
    def __init__(self, num_heads: int, head_dim: int, dtype: torch.dtype):
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.dtype = dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, output_scale=None, output_block_scale=None):
        key_cache, value_cache = kv_cache.unbind(0)
        flat_k = einops.rearrange(key_cache, "nb bs h d -> (nb bs) h d").to(self.dtype)  # positive: f5 CL001 rearrange keeps every slot of the key cache
        flat_v = rr(value_cache, "nb bs h d -> h (nb bs) d").float()  # positive: f5 CL001 aliased rearrange of the whole value cache
        used = rr(key_cache[attn_metadata.block_table], "b nb bs h d -> b (nb bs) h d").to(self.dtype)  # negative: blocks of the batch gathered before rearranging
        q_r = einops.rearrange(query, "t (h d) -> t h d", h=self.num_heads).to(self.dtype)  # negative: query of this step
        return flat_k, flat_v, used, q_r
