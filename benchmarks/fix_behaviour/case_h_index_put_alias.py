"""HAZARD case h_index_put_alias: index_put_ through a differently named local bound to the same buffer."""
import torch

KIND = "hazard"
FAMILY = "in-place index_put_ via alias"


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

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward_decode(self, k, layer_id, out_cache_loc, kv_indices):
        cache = self.token_to_kv_pool.k_buffer[layer_id]
        k_fp32 = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        cache.index_put_((out_cache_loc,), k.to(cache.dtype))
        return k_fp32[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward_decode(_rand((2, 2, 4), 6), 1, torch.tensor([0, 15]), torch.tensor([15, 0, 2]))
    return {"out": out, "k": pool.k_buffer}
