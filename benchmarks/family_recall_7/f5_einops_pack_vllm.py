"""f5: einops.pack of K/V planes, an identity-ellipsis rearrange and einops.reduce over heads=1."""
import einops
import torch


class EinopsImpl:
    def __init__(self, num_heads, head_size, num_kv_heads):
        self.num_heads = num_heads
        self.head_size = head_size
        self.num_kv_heads = num_kv_heads

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        packed, ps = einops.pack([key_cache, value_cache], "nb bs * d")
        dense = packed.to(query.dtype)  # positive: f5 CL001 pack of whole K and V planes
        same = einops.rearrange(key_cache, "... d -> ... d").float()  # positive: f5 CL001 identity rearrange keeps every slot
        tokens = einops.rearrange(value_cache, "nb bs h d -> (nb bs) h d").half()  # positive: f5 CL001 token-major whole V plane
        q_heads = einops.rearrange(query, "t (h d) -> t h d", h=self.num_heads).float()  # negative: the batch's query
        return dense, ps, same, tokens, q_heads
