import operator

import torch


class XPUAttentionImpl:
    """IPEX path without an FP8 paged kernel: the cache is widened first."""

    def __init__(self):
        self.upcast = operator.methodcaller("to", torch.bfloat16)
        self.move = operator.methodcaller("to", "xpu")

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k = self.upcast(key_cache)  # positive: f4 CL001 methodcaller("to", bfloat16) on the whole key cache
        v = self.move(value_cache)  # negative: device move only
        v_up = self.upcast(value_cache)  # positive: f4 CL001 same methodcaller on the whole value cache
        q = self.upcast(query)  # negative: query
        return q, k, v, v_up
