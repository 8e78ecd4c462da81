"""vLLM FlashAttention fallback under a FULL cudagraph: torch.alias_copy / torch.detach_copy of the cache before the widen."""
import torch


class FullGraphFp8FallbackImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        # replayed by the FULL cudagraph wrapper every decode step
        key_cache, value_cache = kv_cache.unbind(0)
        k = torch.alias_copy(key_cache).to(query.dtype)  # positive: f5 CL001 copy of the whole key plane, widened
        v = torch.detach_copy(value_cache).to(query.dtype)  # positive: f5 CL001 copy of the whole value plane, widened
        blocks = attn_metadata.block_table[:, 0]
        first = torch.alias_copy(key_cache[blocks]).to(query.dtype)  # negative: first blocks gathered first
        sm = torch.alias_copy(layer._q_scale).to(query.dtype)  # negative: scale
        return self._fa(query, k, v, first, sm)

    def _fa(self, *a):
        return a
