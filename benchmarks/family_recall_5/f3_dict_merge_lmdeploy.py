"""Cache dicts merged with ** and | before the forward pass."""

import torch


class MergedCaches:
    def __init__(self, cache_engine, draft_engine):
        base = {f"L{i}": kv for i, kv in enumerate(cache_engine.gpu_cache)}
        draft = {f"D{i}": kv for i, kv in enumerate(draft_engine.gpu_cache)}
        self.all = {**base, **draft}
        self.meta = {"q_start": torch.zeros(65, dtype=torch.int32)} | {"kv_len": torch.zeros(64, dtype=torch.int32)}


class MergedAttention:
    def __init__(self, merged, name, dtype=torch.float16):
        self.merged = merged
        self.name = name
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata):
        kc, vc = self.merged.all[self.name]
        kh = kc.to(self.dtype)  # positive: f3 CL001 k cache from a **-merged dict of engine caches
        vh = vc.half()  # positive: f3 CL001 v cache from the same merged dict
        qs = self.merged.meta["q_start"].long()  # negative: q start offsets from a |-merged dict
        kl = self.merged.meta["kv_len"].long()  # negative: kv lengths
        return torch.ops.lmdeploy.paged_attn(query, kh, vh, qs, kl)


class ChainMapAttention(MergedAttention):
    """Looks names up in the draft engine first, then the base engine."""

    def __init__(self, cache_engine, draft_engine, name, dtype=torch.float16):
        from collections import ChainMap

        base = {f"L{i}": kv for i, kv in enumerate(cache_engine.gpu_cache)}
        draft = {f"L{i}": kv for i, kv in enumerate(draft_engine.gpu_cache)}
        self.lookup = ChainMap(draft, base)
        self.name = name
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata):
        kc, vc = self.lookup[self.name]
        kf = kc.float()  # positive: f3 CL001 k cache found through a ChainMap of engine cache dicts
        vw = vc[: attn_metadata.num_blocks_used].float()  # negative: leading blocks in use only
        return torch.ops.lmdeploy.paged_attn(query, kf, vw, attn_metadata.block_offsets)
