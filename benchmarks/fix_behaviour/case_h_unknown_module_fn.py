"""HAZARD case h_unknown_module_fn: a call into an ops namespace (stand-in for an extension kernel) stores K/V."""
import torch

KIND = "hazard"
FAMILY = "unknown module function"


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

class _CacheOps:
    @staticmethod
    def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping):
        key_cache[slot_mapping] = key.to(key_cache.dtype)
        value_cache[slot_mapping] = value.to(value_cache.dtype)


ops = _CacheOps()


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward_decode(self, k, v, layer_id, slot_mapping, kv_indices):
        key_cache, value_cache = self.token_to_kv_pool.get_kv_buffer(layer_id)
        k_bf16 = key_cache.to(torch.bfloat16)
        ops.reshape_and_cache(k, v, key_cache, value_cache, slot_mapping)
        return k_bf16[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward_decode(_rand((2, 2, 4), 18), _rand((2, 2, 4), 19), 1, torch.tensor([13, 14]), torch.tensor([14, 13, 2]))
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
