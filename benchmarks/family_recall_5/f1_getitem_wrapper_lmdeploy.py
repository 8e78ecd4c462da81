"""lmdeploy-style cache wrapper exposing layers through __getitem__."""

import torch


class LayerCaches:
    """Indexes the engine's (k_cache, v_cache) pairs by layer."""

    def __init__(self, cache_engine):
        self._pairs = cache_engine.gpu_cache

    def __getitem__(self, layer_idx):
        return self._pairs[layer_idx]

    def __len__(self):
        return len(self._pairs)


class SmallRing:
    """Per-request ring of the last 8 tokens' keys."""

    def __init__(self, head_dim):
        self.ring = torch.zeros(8, head_dim, dtype=torch.float16)

    def __getitem__(self, i):
        return self.ring[i]


class FallbackAttention:
    def __init__(self, cache_engine, head_dim):
        self.caches = LayerCaches(cache_engine)
        self.recent = SmallRing(head_dim)

    def forward(self, query, key, value, attn_metadata, layer_idx):
        kc, vc = self.caches[layer_idx]
        kf = kc.float()  # positive: f1 CL001 k_cache of the layer returned by the wrapper's __getitem__
        vf = vc.float()  # positive: f1 CL001 v_cache of the layer returned by the wrapper's __getitem__
        last = self.recent[0].float()  # negative: one row of an 8-token per-request ring
        qf = query.float()  # negative: batch query
        bt = attn_metadata.block_offsets.long()  # negative: block offsets
        return torch.ops.lmdeploy.paged_attn(qf, kf, vf, bt, last)
