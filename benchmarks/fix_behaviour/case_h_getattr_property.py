"""HAZARD case h_getattr_property: getattr(pool, 'name') reads a @property whose getter commits staged writes."""
import torch

KIND = "hazard"
FAMILY = "property getter via getattr"


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

class LazyPool(MHATokenToKVPool):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.staged = []

    @property
    def num_committed(self):
        n = len(self.staged)
        for layer_id, loc, k in self.staged:
            self.k_buffer[layer_id][loc] = k.to(self.dtype)
        self.staged = []
        return n


class Backend:
    def __init__(self, pool, stat_name="num_committed"):
        self.token_to_kv_pool = pool
        self.stat_name = stat_name

    def forward(self, layer_id, kv_indices):
        k_cache = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        n = getattr(self.token_to_kv_pool, self.stat_name)
        return k_cache[kv_indices], n


def run_case(torch):
    pool = LazyPool(16, 2, 4, 2)
    pool.staged.append((1, torch.tensor([10]), _rand((1, 2, 4), 42)))
    out = Backend(pool).forward(1, torch.tensor([10, 2]))
    return {"out": out, "k": pool.k_buffer}
