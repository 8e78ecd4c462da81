"""SAFE case s_lmdeploy_caches: lmdeploy-style self.kv_caches[layer] (k_cache, v_cache) .float().index_select(0, block_offsets)."""
import torch

KIND = "safe"
FAMILY = "safe: lmdeploy"


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

class PagedAttention:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches

    def forward(self, layer_idx, block_offsets):
        k_cache, v_cache = self.kv_caches[layer_idx]
        k = k_cache.float().index_select(0, block_offsets)
        v = v_cache.float().index_select(0, block_offsets)
        return k, v


def run_case(torch):
    g = torch.Generator().manual_seed(0)
    caches = [(torch.randn(8, 4, 2, 4, generator=g).to(torch.float8_e4m3fn),
               torch.randn(8, 4, 2, 4, generator=g).to(torch.float8_e4m3fn)) for _ in range(2)]
    out = PagedAttention(caches).forward(1, torch.tensor([2, 5, 2]))
    return {"out": out, "caches": caches}
