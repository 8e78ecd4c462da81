# lmdeploy-style cache engine whose per-layer record objects carry the caches.
from typing import List, Optional

import torch


class LayerKV:
    def __init__(self, layer_idx: int, k_cache: torch.Tensor, v_cache: torch.Tensor, scales: Optional[torch.Tensor] = None):
        self.layer_idx = layer_idx
        self.k_cache = k_cache
        self.v_cache = v_cache
        self.scales = scales

    def kv(self):
        return self.k_cache, self.v_cache


class BlockCacheEngine:
    def __init__(self, num_layers: int, num_blocks: int, block_size: int, num_heads: int, head_dim: int, dtype: torch.dtype):
        self.block_size = block_size
        self.records: List[LayerKV] = [
            LayerKV(
                i,
                torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=dtype, device="cuda"),
                torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=dtype, device="cuda"),
            )
            for i in range(num_layers)
        ]

    def layer(self, idx: int) -> LayerKV:
        return self.records[idx]


class PagedDecodeRunner:
    def __init__(self, engine: BlockCacheEngine, compute_dtype: torch.dtype = torch.float16):
        self.engine = engine
        self.compute_dtype = compute_dtype

    def step(self, query: torch.Tensor, key: torch.Tensor, layer_idx: int, block_offsets: torch.Tensor):
        rec = self.engine.layer(layer_idx)
        k_fp32 = rec.k_cache.float()  # positive: f1 CL001 record returned by engine.layer() carries the whole k cache
        k_c, v_c = rec.kv()
        v_half = v_c.to(self.compute_dtype)  # positive: f1 CL001 kv() of the record returns the whole v cache
        blocks = rec.k_cache[block_offsets].to(self.compute_dtype)  # negative: blocks of this batch gathered first
        key_c = key.to(rec.k_cache.dtype)  # negative: key of the current tokens
        return k_fp32, v_half, blocks, key_c

    def fill_new(self, key: torch.Tensor, value: torch.Tensor):
        fresh = LayerKV(-1, key, value)
        k_tmp = fresh.k_cache.float()  # negative: record built over batch key/value
        return k_tmp

    def dump_all(self):
        out = []
        for rec in self.engine.records:
            out.append(rec.v_cache.to(torch.float32))  # positive: f1 CL001 every record's whole v cache
        return out

    def move_all(self, device: torch.device):
        return [rec.k_cache.to(device) for rec in self.engine.records]  # negative: device move
