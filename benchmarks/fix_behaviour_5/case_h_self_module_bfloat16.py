"""HAZARD case h_self_module_bfloat16: self.bfloat16() between, on an attention module that registered the (float32) pool's K buffer as a Parameter: the pool buffer becomes bf16 in place."""
import torch

KIND = "hazard"
FAMILY = "an nn.Module conversion method with a read-only name (to / bfloat16 / type) converts the module's Parameters in place (param.data = ...); the pool's buffer is one of them"


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

class Attn(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.token_to_kv_pool = pool
        self.k_arena = torch.nn.Parameter(pool.k_buffer[1], False)
        pool.k_buffer[1] = self.k_arena

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).double()
        self.bfloat16()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.float32)
    out = Attn(pool)(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
