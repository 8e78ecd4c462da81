# SPDX-License-Identifier: Apache-2.0
"""Reference prefill path in a vLLM backend hierarchy that casts before gathering blocks."""
import torch

from vllm.attention.backends.abstract import AttentionImpl


class _BlockCacheBase(AttentionImpl):
    def key_cache(self, kv_cache):
        return kv_cache[0]

    def value_cache(self, kv_cache):
        return kv_cache[1]


class GatherReferenceImpl(_BlockCacheBase):
    def __init__(self, num_heads, head_size, scale, num_kv_heads):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        bt = attn_metadata.block_table
        k_blocks = self.key_cache(kv_cache).to(query.dtype)[bt]  # positive: f2 CL003 cast of inherited K view, then block gather
        v_blocks = torch.index_select(self.value_cache(kv_cache).float(), 0, bt.flatten())  # positive: f2 CL003 cast then index_select
        k_ok = self.key_cache(kv_cache)[bt].to(query.dtype)  # negative: gather then cast
        v_ok = torch.index_select(self.value_cache(kv_cache), 0, bt.flatten()).float()  # negative: index_select then cast
        return k_blocks, v_blocks, k_ok, v_ok
