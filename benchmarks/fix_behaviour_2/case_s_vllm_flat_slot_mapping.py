"""SAFE case s_vllm_flat_slot_mapping: a reshape of the whole cache, converted, then gathered by slot."""
import torch

KIND = "safe"
FAMILY = "safe: vLLM key_cache.view(-1, h, d).to(dtype)[slot_mapping]"


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

class Impl:
    def forward(self, query, kv_cache, slot_mapping):
        key_cache = kv_cache[0]
        flat = key_cache.view(-1, 2, 4)
        return flat.to(query.dtype)[slot_mapping]


def run_case(torch):
    g = torch.Generator().manual_seed(0)
    kv_cache = torch.randn(2, 4, 4, 2, 4, generator=g).to(torch.float8_e4m3fn)
    out = Impl().forward(_rand((2, 2, 4), 2), kv_cache, torch.tensor([0, 9, 15]))
    return {"out": out, "kv_cache": kv_cache}
