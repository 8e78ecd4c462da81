"""f4: higher-order helpers apply lambdas to the cache (only ever given kv_cache) and to batch tensors."""
import torch


def apply_to_cache(fn, kv_cache):
    return fn(kv_cache)


def apply_each(fn, items):
    return [fn(t) for t in items]


class HofImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = apply_to_cache(lambda c: c.to(query.dtype), kv_cache)  # positive: f4 CL001 the lambda only ever gets kv_cache
        k_all = apply_to_cache(lambda c: c[0], kv_cache).float()  # positive: f4 CL001 K of every block returned through the helper
        q32, k32 = apply_each(lambda t: t.to(torch.float32), [query, key])  # negative: batch tensors
        blocks = apply_to_cache(lambda c: c[:, attn_metadata.block_table[0]], kv_cache).float()  # negative: one request's blocks
        return dense, k_all, q32, k32, blocks
