"""HAZARD case h_branch_second_buffer: two branches feed the same gather: the pool cast to bf16, or an fp32 workspace."""
import torch

KIND = "hazard"
FAMILY = "second buffer reaching the consumer"


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
    def __init__(self, pool, use_workspace):
        self.token_to_kv_pool = pool
        self.use_workspace = use_workspace
        self.workspace = torch.arange(16 * 2 * 4, dtype=torch.float32).reshape(16, 2, 4) / 7

    def forward_decode(self, layer_id, kv_indices):
        if self.use_workspace:
            k_buffer = self.workspace
        else:
            k_buffer = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        return k_buffer[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    a = Backend(pool, True).forward_decode(0, torch.tensor([1, 3]))
    b = Backend(pool, False).forward_decode(0, torch.tensor([1, 3]))
    return {"a": a, "b": b, "k": pool.k_buffer}
