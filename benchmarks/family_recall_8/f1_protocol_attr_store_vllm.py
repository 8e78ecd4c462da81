from typing import Protocol

import torch


class LayerStore(Protocol):
    def layer(self, idx: int) -> torch.Tensor: ...


class PagedStore:
    def __init__(self, kv_caches):
        self._caches = kv_caches

    def layer(self, idx):
        return self._caches[idx]


class ProtocolHoldingImpl:
    store: LayerStore

    def __init__(self, kv_caches, layer_idx):
        self.store = PagedStore(kv_caches)
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        paged = self.store.layer(self.layer_idx)
        dense = paged.to(query.dtype)  # positive: f1 CL001 whole layer through a Protocol-typed attribute
        seq = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        q2 = query.to(torch.float32)  # negative: batch query
        return dense, seq, q2
