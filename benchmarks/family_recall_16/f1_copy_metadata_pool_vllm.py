import copy
from dataclasses import dataclass

import torch


@dataclass
class DecodeMetadata:
    kv_cache: torch.Tensor
    block_table: torch.Tensor
    seq_lens: torch.Tensor


class TorchSDPAImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        meta = copy.copy(attn_metadata)
        meta.kv_cache = kv_cache
        return self._decode(query, meta)

    def _decode(self, query, meta):
        key_cache, value_cache = meta.kv_cache.unbind(0)
        rows = meta.block_table[:, 0]
        picked = key_cache[rows].to(query.dtype)  # negative: gathered blocks
        dense_v = value_cache.to(query.dtype)  # positive: f1 CL001 whole value cache carried by a copied metadata
        table = meta.block_table.to(torch.int64)  # negative: block table, not the cache
        dense_k = key_cache.float()  # positive: f1 CL001 whole key cache from the same copied metadata
        return picked, dense_v, dense_k, table
