"""f2: a subclass reshapes kv_cache and passes it to super().forward, which converts it."""
import torch


class TritonImplLite:
    def __init__(self, num_heads, head_size, num_kv_heads, block_size):
        self.num_heads = num_heads
        self.head_size = head_size
        self.num_kv_heads = num_kv_heads
        self.block_size = block_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k = key_cache.to(query.dtype)  # positive: f2 CL001 K of every block, reached directly or via the subclass
        slots = attn_metadata.slot_mapping.long()  # negative: slot mapping
        return self._attend(query, k, value_cache, slots, output)

    def _attend(self, query, k, value_cache, slots, output):
        return output


class PagedViewImpl(TritonImplLite):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        paged = kv_cache.view(2, -1, self.block_size, self.num_kv_heads, self.head_size)
        v_all = paged[1].half()  # positive: f2 CL001 V of every block in the subclass
        q_half = query.half()  # negative: batch query
        return super().forward(layer, q_half, key, value, paged, attn_metadata, output), v_all
