"""HAZARD case h_sorted_key: sorted(..., key=bound method) whose key function stores each request's KV."""
import torch

KIND = "hazard"
FAMILY = "callback via builtin"


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

    def _admit(self, req):
        self.token_to_kv_pool.set_kv_buffer(0, req["loc"], req["k"], req["k"])
        return req["prio"]

    def step(self, reqs, kv_indices):
        k_cache = self.token_to_kv_pool.get_key_buffer(0).float()
        order = sorted(reqs, key=self._admit)
        return k_cache[kv_indices], [r["prio"] for r in order]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 1)
    s = Scheduler(pool)
    reqs = [{"loc": torch.tensor([4]), "k": _rand((1, 2, 4), 16), "prio": 2},
            {"loc": torch.tensor([9]), "k": _rand((1, 2, 4), 17), "prio": 1}]
    out, order = s.step(reqs, torch.tensor([9, 4, 0]))
    return {"out": out, "order": order, "k": pool.k_buffer}
