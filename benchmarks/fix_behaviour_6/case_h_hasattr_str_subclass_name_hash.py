"""HAZARD case h_hasattr_str_subclass_name_hash: hasattr(conf, name), name a str subclass: the lookup hashes the name (its __hash__ writes)."""
import torch

KIND = "hazard"
FAMILY = "a read-only builtin runs a dunder of an argument its callback entry does not list: round()'s ndigits and sorted()'s reverse (__index__), zip()'s strict (__bool__), getattr/hasattr's name (a str subclass's __hash__), iter(f, sentinel)'s sentinel (__eq__)"


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

class AttrName(str):
    """An attribute name that commits the staged K row when it is hashed (looked up)."""

    pool = None

    def __hash__(self):
        if AttrName.pool is not None:
            AttrName.pool.k_buffer[1][3] = 0.5
        return str.__hash__(self)

    __eq__ = str.__eq__


class Conf:
    page_size = 16


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, conf, name):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        has = hasattr(conf, name)
        return k[kv_indices], has


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    AttrName.pool = pool
    try:
        out = Backend(pool).forward(1, torch.tensor([3, 1]), Conf(), AttrName("page_size"))
    finally:
        AttrName.pool = None
    return {"out": out, "k": pool.k_buffer}
