import torch

from .desc import key_of, scale_of, value_of
from .engine import resolve


class DescAttentionImpl:
    def __init__(self, cache_engine, layer_idx):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k = resolve(self.cache_engine, key_of(self.layer_idx)).half()  # positive: f7 CL001 gpu_cache entry resolved from a record in another module
        v = resolve(self.cache_engine, value_of(self.layer_idx))
        v16 = v.half()  # positive: f7 CL001 value cache resolved the same way
        s = resolve(self.cache_engine, scale_of(self.layer_idx)).half()  # negative: per-layer scale
        offs = attn_metadata.block_offsets.long()  # negative: block offsets
        return k, v16, s, offs
