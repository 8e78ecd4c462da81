"""lmdeploy pytorch-engine style attention impl that parks the cache tensors in a handle object."""
from dataclasses import dataclass

import torch

from lmdeploy.pytorch.backends.attention import AttentionImpl, AttentionMetadata


class CacheHandle:
    def __init__(self, k_cache: torch.Tensor, v_cache: torch.Tensor):
        self.k = k_cache
        self.v = v_cache

    def both(self):
        return self.k, self.v

    def k_blocks(self, block_offsets):
        return self.k[block_offsets]


@dataclass
class HandleAttentionMetadata(AttentionMetadata):
    block_offsets: torch.Tensor = None
    q_start_loc: torch.Tensor = None
    q_seqlens: torch.Tensor = None
    kv_seqlens: torch.Tensor = None


class HandleAttentionImpl(AttentionImpl):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata: HandleAttentionMetadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        handle = CacheHandle(k_cache, v_cache)
        kc, vc = handle.both()
        kc = kc.to(query.dtype)  # positive: f1 CL001 handle returns the caches
        vc = handle.v.to(query.dtype)  # positive: f1 CL001 handle attribute is the cache
        blocks = handle.k_blocks(attn_metadata.block_offsets[0]).to(query.dtype)  # negative: block gather first
        new_k = key.to(k_cache.dtype)  # negative: new tokens cast to cache dtype for the store
        return self._paged(query, kc, vc, blocks, new_k, attn_metadata)

    def _paged(self, *args):
        return args[0]
