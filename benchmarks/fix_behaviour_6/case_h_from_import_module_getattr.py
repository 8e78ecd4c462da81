"""HAZARD case h_from_import_module_getattr: from _kv_plugins_fb6 import page_size between: the module's __getattr__ (a function set in run_case) flushes the staged K row."""
import torch

KIND = "hazard"
FAMILY = "the import system runs code of the file: an import statement asks the sys.meta_path finders (find_spec), `from m import x` and `m.x` call a module's __getattr__ (PEP 562, a function, not a class member)"


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
import types


def _make_module(pool):
    mod = types.ModuleType("_kv_plugins_fb6")

    def lazy(name):
        if name == "page_size":
            pool.k_buffer[1][3] = 0.5
            return 16
        raise AttributeError(name)

    mod.__getattr__ = lazy
    return mod


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        from _kv_plugins_fb6 import page_size
        return k[kv_indices], page_size


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    sys.modules["_kv_plugins_fb6"] = _make_module(pool)
    try:
        out = Backend(pool).forward(1, torch.tensor([3, 1]))
    finally:
        del sys.modules["_kv_plugins_fb6"]
    return {"out": out, "k": pool.k_buffer}
