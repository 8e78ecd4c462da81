"""HAZARD case h_audit_id_event: key = id(req) between: id() raises the builtins.id audit event; the file's audit hook flushes the staged K row."""
import torch

KIND = "hazard"
FAMILY = "a read-only builtin or attribute read raises an audit event (sys.addaudithook): id() raises builtins.id, reading a function's __code__ raises object.__getattr__; the file's hook writes"


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

import sys

_ARMED = []


def _hook(event, args):
    if _ARMED and event in ("builtins.id", "object.__getattr__"):
        pool = _ARMED.pop()
        pool.k_buffer[1][3] = 0.5


def _score(a, b):
    return a + b


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, req):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        key = id(req)
        return k[kv_indices], key > 0


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    sys.addaudithook(_hook)
    _ARMED.append(pool)
    try:
        out = Backend(pool).forward(1, torch.tensor([3, 1]), object())
    finally:
        _ARMED.clear()
    return {"out": out, "k": pool.k_buffer}
