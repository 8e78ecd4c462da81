"""HAZARD case h_lambda_key_store: sorted(..., key=lambda r: ...) whose lambda body stores each request's K/V."""
import torch

KIND = "hazard"
FAMILY = "callback (lambda) via builtin"


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

class Scheduler:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def step(self, reqs, kv_indices):
        pool = self.token_to_kv_pool
        k_cache = pool.get_key_buffer(0).to(torch.bfloat16)
        order = sorted(reqs, key=lambda r: pool.set_kv_buffer(0, r["loc"], r["k"], r["k"]) or r["prio"])
        return k_cache[kv_indices], [r["prio"] for r in order]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 1)
    reqs = [{"loc": torch.tensor([12]), "k": _rand((1, 2, 4), 44), "prio": 3},
            {"loc": torch.tensor([13]), "k": _rand((1, 2, 4), 45), "prio": 1}]
    out, order = Scheduler(pool).step(reqs, torch.tensor([13, 12, 0]))
    return {"out": out, "order": order, "k": pool.k_buffer, "v": pool.v_buffer}
