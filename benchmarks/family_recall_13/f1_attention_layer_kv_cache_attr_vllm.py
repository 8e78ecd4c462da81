import torch
from vllm.forward_context import get_forward_context


class SDPAFallbackImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        ctx = get_forward_context()
        own = layer.kv_cache[ctx.virtual_engine]
        full = own.to(dtype=query.dtype)  # positive: f1 CL001 the layer's registered cache, every block
        k_half = key.to(query.dtype)  # negative: the step's new keys
        slots = attn_metadata.slot_mapping.long()  # negative: slot mapping of the step
        return self._sdpa(query, k_half, full, slots, output)

    def _sdpa(self, q, k, cache, slots, out):
        return out
