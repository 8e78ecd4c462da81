"""HAZARD case h_module_register_parameter_override: self.k_scale = <Parameter>: nn.Module.__setattr__ calls self.register_parameter, overridden to re-quantize the staged row into the pool."""
import torch

KIND = "hazard"
FAMILY = "an attribute store runs the file's code another way: nn.Module.__setattr__ calling an overridden register_parameter, a __setattr__ attached by a class decorator's setattr(), a types.DynamicClassAttribute setter"


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

    def register_parameter(self, name, param):
        if name == "k_scale":
            # a new K scale: re-quantize the staged row into the pool
            self.token_to_kv_pool.k_buffer[1][3] = 0.5
        super().register_parameter(name, param)

    def forward(self, layer_id, kv_indices, k_scale):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.k_scale = k_scale
        return k[kv_indices] * self.k_scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Attn(pool)(1, torch.tensor([3, 1]), torch.nn.Parameter(torch.full((1,), 2.0), False))
    return {"out": out, "k": pool.k_buffer}
