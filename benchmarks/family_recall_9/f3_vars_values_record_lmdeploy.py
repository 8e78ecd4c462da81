"""A plain record object whose attributes are walked with vars(rec).items()/values()."""
import torch


class LayerRecord:
    def __init__(self, k_cache, v_cache):
        self.k_cache = k_cache
        self.v_cache = v_cache


class StepRecord:
    def __init__(self, attn_metadata):
        self.block_offsets = attn_metadata.block_offsets
        self.q_seqlens = attn_metadata.q_seqlens


class VarsAttention:
    def __init__(self, cache_engine, layer_idx):
        self.rec = LayerRecord(*cache_engine.gpu_cache[layer_idx])

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        up = {}
        for name, t in vars(self.rec).items():
            up[name] = t.to(query.dtype)  # positive: f3 CL001 each cache of the record via vars().items()
        first = next(iter(vars(self.rec).values()))
        first_f = first.float()  # positive: f3 CL001 first attribute of the record (the K cache)
        for t in vars(StepRecord(attn_metadata)).values():
            up[id(t)] = t.to(torch.int64)  # negative: per-step block offsets and lengths
        return up, first_f
