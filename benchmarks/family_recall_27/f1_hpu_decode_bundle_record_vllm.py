from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class _DecodeBundle:
    key_cache: torch.Tensor
    value_cache: torch.Tensor
    block_list: torch.Tensor
    k_scale: Optional[torch.Tensor]


class HPUAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.fp8_kv = kv_cache_dtype.startswith("fp8")
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        bundle = _DecodeBundle(key_cache, value_cache, attn_metadata.block_list, getattr(layer, "_k_scale", None))
        if attn_metadata.is_prompt:
            return self._prompt(query, bundle)
        return self._decode(query, bundle)

    def _decode(self, query, b):
        keys = b.key_cache.to(query.dtype)  # positive: f1 CL001 the whole key cache carried by the record (no fp8 path in the fallback kernel)
        values = b.value_cache.index_select(0, b.block_list).to(query.dtype)  # negative: blocks of the batch
        scale = b.k_scale.to(torch.float32) if b.k_scale is not None else 1.0  # negative: the scale
        return self._flat_pa(query, keys, values, b.block_list, scale)

    def _prompt(self, query, b):
        prefix = b.key_cache.index_select(0, b.block_list).to(query.dtype)  # negative: prefix blocks only
        return self._sdpa(query, prefix, b.value_cache.index_select(0, b.block_list))
