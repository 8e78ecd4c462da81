"""Slices that look bounded but cover the whole cache: x[-x.shape[0]:] and x[:len(x) + 1]."""
import torch


class OverboundSliceImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k = key_cache[-key_cache.shape[0]:].to(query.dtype)  # positive: f5 CL001 negative start at the full length
        v = value_cache[: len(value_cache) + 1].to(query.dtype)  # positive: f5 CL001 stop past the end
        n = attn_metadata.num_actual_tokens
        recent = key_cache[-n:].to(query.dtype)  # negative: the last n (step tokens) rows
        head = value_cache[:n].to(query.dtype)  # negative: bounded by the step's tokens
        return k, v, recent, head
