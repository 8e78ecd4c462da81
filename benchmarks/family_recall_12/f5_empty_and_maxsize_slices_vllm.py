import sys

import torch


class SliceBoundsImpl:
    def __init__(self, num_heads, head_size, scale):
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        full = kv_cache[: sys.maxsize].to(query.dtype)  # positive: f5 CL001 a sys.maxsize stop keeps every block
        none = kv_cache[:-0].to(query.dtype)  # negative: [:-0] is empty
        past = kv_cache[kv_cache.shape[0]:].to(query.dtype)  # negative: starts past the end, empty
        n = attn_metadata.num_blocks_used
        used = kv_cache[:n].to(query.dtype)  # negative: bounded by the step
        return full, none, past, used
