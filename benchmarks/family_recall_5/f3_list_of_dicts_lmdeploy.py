"""One dict per layer: {"k": k_cache, "v": v_cache, "sz": scales}."""

import torch


class PerLayerDicts:
    def __init__(self, cache_engine):
        self.layers = [
            {"k": kc, "v": vc, "sz": torch.ones(kc.shape[0], 2, dtype=torch.float32)}
            for kc, vc in cache_engine.gpu_cache
        ]


class DictLayerAttention:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.store = PerLayerDicts(cache_engine)
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata, layer_idx):
        entry = self.store.layers[layer_idx]
        k_dense = entry["k"].to(self.dtype)  # positive: f3 CL001 whole k cache from a per-layer dict in a list
        v_dense = entry.get("v").to(self.dtype)  # positive: f3 CL001 whole v cache via dict.get
        sz = entry["sz"].to(self.dtype)  # negative: scales/zeros per block
        return torch.ops.lmdeploy.paged_attn(query, k_dense, v_dense, sz, attn_metadata.block_offsets)

    def export_all(self):
        return [{k: t.to(torch.float32) for k, t in d.items()} for d in self.store.layers]  # note: export utility, not called per step

    def forward_decode(self, query, attn_metadata, layer_idx):
        entry = self.store.layers[layer_idx]
        offs = attn_metadata.block_offsets
        kb = entry["k"][offs].to(self.dtype)  # negative: gather-then-cast of the batch's blocks
        sz = entry["sz"][offs].float()  # negative: scales of the batch's blocks
        return torch.ops.lmdeploy.decode_attn(query, kb, sz)
