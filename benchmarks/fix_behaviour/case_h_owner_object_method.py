"""HAZARD case h_owner_object_method: a writer object that holds the pool stores K/V between cast and gather."""
import torch

KIND = "hazard"
FAMILY = "object holding the pool"


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

class KVWriter:
    def __init__(self, pool):
        self.pool = pool

    def commit(self, layer_id, loc, k, v):
        self.pool.k_buffer[layer_id][loc] = k.to(self.pool.dtype)
        self.pool.v_buffer[layer_id][loc] = v.to(self.pool.dtype)


class TritonBackend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.kv_writer = KVWriter(pool)

    def forward_extend(self, q, k, v, layer_id, out_cache_loc, kv_indices):
        k_cache = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.kv_writer.commit(layer_id, out_cache_loc, k, v)
        return k_cache[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = TritonBackend(pool)
    k = _rand((3, 2, 4), 2)
    v = _rand((3, 2, 4), 3)
    out = be.forward_extend(None, k, v, 0, torch.tensor([2, 3, 4]), torch.tensor([0, 2, 3, 4]))
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
