"""vLLM Triton attention fallback on Turing (SM75, no fp8 cache loads): planes in a dict keyed by an IntEnum."""
from enum import IntEnum

import torch


class KV(IntEnum):
    KEY = 0
    VALUE = 1


class TuringTritonFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = {kind: kv_cache[kind] for kind in KV}
        if attn_metadata.num_decodes:
            k = planes[KV.KEY].to(query.dtype)  # positive: f3 CL001 whole key plane out of the enum-keyed dict
            v = planes[KV.VALUE].to(query.dtype)  # positive: f3 CL001 whole value plane
        else:
            table = attn_metadata.block_table
            k = planes[KV.KEY][table].to(query.dtype)  # negative: blocks first
            v = planes[KV.VALUE][table].to(query.dtype)  # negative: blocks first
        k_scale = layer._k_scale.to(torch.float32)  # negative: scale
        return self._triton(query, k, v, k_scale, attn_metadata, output)
