"""HAZARD case h_accessor_side_effect: a write-back pool whose get_value_buffer flushes staged stores (into K too)."""
import torch

KIND = "hazard"
FAMILY = "accessor with side effect"


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

class WriteBackPool(MHATokenToKVPool):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.staged = []

    def stage(self, layer_id, loc, k, v):
        self.staged.append((layer_id, loc, k, v))

    def get_value_buffer(self, layer_id):
        while self.staged:
            l, loc, k, v = self.staged.pop(0)
            self.set_kv_buffer(l, loc, k, v)
        return self.v_buffer[layer_id]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward_decode(self, layer_id, kv_indices):
        k_cache = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        v_cache = self.token_to_kv_pool.get_value_buffer(layer_id).float()
        return k_cache[kv_indices], v_cache[kv_indices]


def run_case(torch):
    pool = WriteBackPool(16, 2, 4, 2)
    pool.stage(0, torch.tensor([4]), _rand((1, 2, 4), 27), _rand((1, 2, 4), 28))
    out = Backend(pool).forward_decode(0, torch.tensor([4, 0]))
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
