"""A typing.Protocol for KV sources; a paged source returns whole caches, a staging source per-step rows."""
from typing import Protocol

import torch


class KVSource(Protocol):
    def planes(self, layer_name: str) -> tuple[torch.Tensor, torch.Tensor]: ...


class PagedSource:
    def __init__(self, layer_names, num_blocks, block_size, heads, head_size):
        self.kv_caches = {
            n: torch.zeros(2, num_blocks, block_size, heads, head_size, dtype=torch.float8_e4m3fn)
            for n in layer_names
        }

    def planes(self, layer_name):
        kv = self.kv_caches[layer_name]
        return kv[0], kv[1]


class StagingSource:
    def __init__(self, max_tokens, heads, head_size):
        self.k = torch.empty(max_tokens, heads, head_size, dtype=torch.float8_e4m3fn)
        self.v = torch.empty(max_tokens, heads, head_size, dtype=torch.float8_e4m3fn)

    def planes(self, layer_name):
        return self.k, self.v


class ReferenceAttentionImpl:
    def __init__(self, source: KVSource, compute_dtype=torch.bfloat16):
        self.source = source
        self.compute_dtype = compute_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_all, v_all = self.source.planes(layer.layer_name)
        k_ref = k_all.to(self.compute_dtype)  # positive: f2 CL001 the paged source returns every block's K
        v_ref = v_all.to(self.compute_dtype)  # positive: f2 CL001 every block's V
        return k_ref, v_ref


class StagingAttentionImpl(ReferenceAttentionImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_tmp, _ = self.source.planes(layer.layer_name)
        n = attn_metadata.num_actual_tokens
        return k_tmp[:n].to(self.compute_dtype)  # negative: the step's staged tokens


def build_impls(layer_names, num_blocks, block_size, max_tokens, heads, head_size):
    ref = ReferenceAttentionImpl(PagedSource(layer_names, num_blocks, block_size, heads, head_size))
    stg = StagingAttentionImpl(StagingSource(max_tokens, heads, head_size))
    return ref, stg
