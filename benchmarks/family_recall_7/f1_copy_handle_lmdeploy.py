"""f1: copy.copy of a cache handle object; the copy still points at the engine's caches."""
import copy

import torch


class CacheHandle:
    def __init__(self, k_cache, v_cache, block_offsets):
        self.k_cache = k_cache
        self.v_cache = v_cache
        self.block_offsets = block_offsets


class CacheEngineLite:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        shape = (num_blocks, block_size, heads, dim)
        self.gpu_cache = [
            (
                torch.empty(shape, dtype=torch.float8_e4m3fn, device="cuda"),
                torch.empty(shape, dtype=torch.float8_e4m3fn, device="cuda"),
            )
            for _ in range(num_layers)
        ]

    def handle(self, layer, block_offsets):
        k, v = self.gpu_cache[layer]
        return CacheHandle(k, v, block_offsets)


class CopyingAttention:
    def __init__(self, engine: CacheEngineLite, layer_idx: int):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, attn_metadata):
        h = self.engine.handle(self.layer_idx, attn_metadata.block_offsets)
        twin = copy.copy(h)
        keys = twin.k_cache.to(query.dtype)  # positive: f1 CL001 a shallow copy shares the whole cache
        vals = copy.copy(h).v_cache.half()  # positive: f1 CL001 same, through an inline copy
        offs = twin.block_offsets.to(torch.int64)  # negative: block offsets
        mine = twin.k_cache[attn_metadata.block_offsets[0]].to(query.dtype)  # negative: one request's blocks
        return keys, vals, offs, mine
