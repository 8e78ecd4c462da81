"""A vLLM FlexAttention-style impl flattening the paged caches and upcasting them for the flex kernel."""
import torch


class FlexAttentionImplLike:
    def __init__(self, num_heads, head_size, num_kv_heads, kv_cache_dtype):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        key_cache = key_cache.view(-1, self.num_kv_heads, self.head_size)
        value_cache = value_cache.view(-1, self.num_kv_heads, self.head_size)
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 flattened whole K plane upcast for flex
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 flattened whole V plane upcast for flex
        p2l = attn_metadata.physical_to_logical.to(torch.int64)  # negative: block map
        q = query.view(1, -1, self.num_kv_heads, self.head_size).transpose(1, 2).float()  # negative: queries
        return key_cache, value_cache, p2l, q
