# SPDX-License-Identifier: Apache-2.0
"""Permute / transpose / squeeze of whole paged caches, then a cast (reference paths)."""
from typing import Optional

import torch

from vllm.attention.backends.abstract import AttentionImpl


class PermuteReferenceImpl(AttentionImpl):
    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype="fp8"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache: torch.Tensor, attn_metadata, output: Optional[torch.Tensor] = None):
        key_cache = kv_cache[0]
        value_cache = kv_cache[1]
        k_hnd = key_cache.permute(0, 2, 1, 3).contiguous().to(query.dtype)  # positive: f5 CL001 permute to HND then cast
        v_t = value_cache.transpose(1, 2).float()  # positive: f5 CL001 transpose then cast
        k_sq = kv_cache.unsqueeze(0).squeeze(0).to(torch.bfloat16)  # positive: f5 CL001 unsqueeze/squeeze round trip keeps the whole cache
        k_blocks = key_cache.permute(0, 2, 1, 3)[attn_metadata.block_table[0]].to(query.dtype)  # negative: gather after permute, before cast
        k_first = key_cache.transpose(1, 2).to(query.dtype)[attn_metadata.block_table[0]]  # positive: f5 CL003 cast before the block gather
        return k_hnd, v_t, k_sq, k_blocks, k_first
