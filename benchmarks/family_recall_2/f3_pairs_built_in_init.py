# Lists of (k, v) pairs built in __init__, read back by index and unpacking.
from typing import List, Tuple

import torch


class PairedKVPool:
    def __init__(self, num_blocks: int, block_size: int, heads: int, dim: int, num_layers: int, dtype: torch.dtype):
        self.kv_pairs: List[Tuple[torch.Tensor, torch.Tensor]] = []
        for _ in range(num_layers):
            k = torch.empty((num_blocks, block_size, heads, dim), dtype=dtype, device="cuda")
            v = torch.empty((num_blocks, block_size, heads, dim), dtype=dtype, device="cuda")
            self.kv_pairs.append((k, v))
        keys = [p[0] for p in self.kv_pairs]
        values = [p[1] for p in self.kv_pairs]
        self.zipped = list(zip(keys, values))

    def pair(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.kv_pairs[layer_idx]


class PairedDecode:
    def __init__(self, pool: PairedKVPool):
        self.pool = pool

    def run(self, query: torch.Tensor, layer_idx: int, block_offsets: torch.Tensor):
        k_cache, v_cache = self.pool.kv_pairs[layer_idx]
        v16 = v_cache.half()  # positive: f3 CL001 second of a (k, v) pair appended in __init__
        k32 = self.pool.kv_pairs[layer_idx][0].float()  # positive: f3 CL001 nested index into the list of pairs
        zk, zv = self.pool.zipped[layer_idx]
        zv16 = zv.to(torch.float16)  # positive: f3 CL001 list(zip(...)) of the per-layer caches
        pk, _ = self.pool.pair(layer_idx)
        pk16 = pk.to(query.dtype)  # positive: f3 CL001 accessor method returning the pair
        used = k_cache[block_offsets].float()  # negative: this batch's blocks
        q16 = query.to(k_cache.dtype)  # negative: query
        return v16, k32, zv16, pk16, used, q16

    def export(self):
        return [(k.to("cpu"), v.to("cpu")) for k, v in self.pool.kv_pairs]  # negative: device moves only
