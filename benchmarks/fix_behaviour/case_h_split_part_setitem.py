"""HAZARD case h_split_part_setitem: the rope part of a split() of the pool is written by __setitem__."""
import torch

KIND = "hazard"
FAMILY = "write via split view"


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

class MLABackend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, k_rope, layer_id, loc, kv_indices):
        kv = self.token_to_kv_pool.get_key_buffer(layer_id)
        kv_bf16 = kv.to(torch.bfloat16)
        _, rope_part = kv.split([3, 1], dim=-1)
        rope_part[loc] = k_rope.to(rope_part.dtype)
        return kv_bf16[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = MLABackend(pool).forward(_rand((2, 2, 1), 34), 0, torch.tensor([3, 4]), torch.tensor([4, 3]))
    return {"out": out, "k": pool.k_buffer}
