"""HAZARD case h_helper_view_arg: module helper receives a reshaped view of the pool and writes rows into it."""
import torch

KIND = "hazard"
FAMILY = "helper writes via view"


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

def _store_rows(flat_cache, loc, rows):
    flat_cache[loc] = rows.reshape(rows.shape[0], -1).to(flat_cache.dtype)


class XPUAttnBackend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward_decode(self, q, k, layer_id, out_cache_loc, kv_indices):
        kv = self.token_to_kv_pool.get_key_buffer(layer_id)
        kv_bf16 = kv.to(torch.bfloat16)
        _store_rows(kv.view(kv.shape[0], -1), out_cache_loc, k)
        return kv_bf16[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = XPUAttnBackend(pool)
    out = be.forward_decode(None, _rand((2, 2, 4), 7), 1, torch.tensor([6, 7]), torch.tensor([6, 7, 1]))
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
