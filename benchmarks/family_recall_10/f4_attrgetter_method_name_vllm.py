"""Conversion methods looked up with operator.attrgetter("half") / attrgetter("to") and called."""
import operator

import torch


class AttrGetterImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k = operator.attrgetter("half")(key_cache)()  # positive: f4 CL001 method fetched with attrgetter, whole K plane
        v = operator.attrgetter("to")(value_cache)(query.dtype)  # positive: f4 CL001 attrgetter("to") on the V plane
        ks = operator.attrgetter("to")(layer._k_scale)(query.dtype)  # negative: a scale
        bt = operator.attrgetter("block_table")(attn_metadata).to(torch.int64)  # negative: block table
        return k, v, ks, bt
