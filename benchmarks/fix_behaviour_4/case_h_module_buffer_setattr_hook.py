"""HAZARD case h_module_buffer_setattr_hook: self.k_scale = k_scale (a registered buffer) runs a hook that writes the pool."""
import torch

KIND = "hazard"
FAMILY = "an attribute store on an nn.Module runs torch's global buffer-registration hooks"


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
        self.register_buffer("k_scale", torch.ones(1))

    def forward(self, layer_id, kv_indices, k_scale):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.k_scale = k_scale
        return k[kv_indices] * self.k_scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    attn = Attn(pool)

    def hook(module, name, value):
        pool.k_buffer[1][3] = 0.5

    handle = torch.nn.modules.module.register_module_buffer_registration_hook(hook)
    try:
        out = attn(1, torch.tensor([3, 1]), torch.full((1,), 2.0))
    finally:
        handle.remove()
    return {"out": out, "k": pool.k_buffer}
