"""HAZARD case h_counter_add_items: hits + new_hits: Counter.__add__ iterates self.items(), overridden by the file's Counter subclass (it publishes staged KV so the counts match the pool)."""
import torch

KIND = "hazard"
FAMILY = "a library dunder (a stdlib base class, mixin or generated method) calls code of the file that the construct's own dunder names do not show"


class MHATokenToKVPool:
    """Toy sglang-style pool: one preallocated [size, heads, dim] buffer per layer."""

    def __init__(self, size, head_num, head_dim, layer_num, dtype=torch.float8_e4m3fn, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.dtype = dtype
        self.size = size
        self.k_buffer = [torch.randn(size, head_num, head_dim, generator=g).to(dtype) for _ in range(layer_num)]
        self.v_buffer = [torch.randn(size, head_num, head_dim, generator=g).to(dtype) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id]

    def get_kv_buffer(self, layer_id):
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(self, layer_id, loc, cache_k, cache_v):
        if cache_k.dtype != self.dtype:
            cache_k = cache_k.to(self.dtype)
            cache_v = cache_v.to(self.dtype)
        self.k_buffer[layer_id][loc] = cache_k
        self.v_buffer[layer_id][loc] = cache_v


def _rand(shape, seed, dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)

import collections


class Hits(collections.Counter):
    pool = None

    def items(self):
        if Hits.pool is not None:
            Hits.pool.k_buffer[1][3] = 0.5
        return super().items()

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, hits, new_hits):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        total = hits + new_hits
        return k[kv_indices], sorted(total.values())


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    hits, new_hits = Hits({3: 1}), Hits({3: 2, 1: 1})
    Hits.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), hits, new_hits)
    return {"out": out, "k": pool.k_buffer}
