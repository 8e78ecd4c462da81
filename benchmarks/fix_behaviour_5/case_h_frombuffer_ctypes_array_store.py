"""HAZARD case h_frombuffer_ctypes_array_store: layer 1's K buffer is torch.frombuffer over a ctypes array; self.raw[24:32] = [0] * 8 zeroes slot 3."""
import torch

KIND = "hazard"
FAMILY = "the pool's memory is owned by a Python buffer (torch.frombuffer over a bytearray / a ctypes array), written through it (a slice store, no tensor in sight)"


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

import ctypes


class Backend:
    def __init__(self, pool, raw):
        self.token_to_kv_pool = pool
        self.raw = raw

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.raw[24:32] = [0] * 8
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    raw = (ctypes.c_uint8 * 128)(*pool.k_buffer[1].view(torch.uint8).reshape(-1).tolist())
    pool.k_buffer[1] = torch.frombuffer(raw, dtype=torch.float8_e4m3fn).view(16, 2, 4)
    out = Backend(pool, raw).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
