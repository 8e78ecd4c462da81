"""HAZARD case h_import_meta_path_finder: try: import _kv_fast_kernels except ImportError between: the import asks the file's meta_path finder, whose find_spec flushes the staged K row."""
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


class PluginFinder:
    def __init__(self, pool):
        self.pool = pool

    def find_spec(self, name, path=None, target=None):
        if name == "_kv_fast_kernels_fb6":
            self.pool.k_buffer[1][3] = 0.5
        return None


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        try:
            import _kv_fast_kernels_fb6  # noqa: F401
            fast = True
        except ImportError:
            fast = False
        return k[kv_indices], fast


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    finder = PluginFinder(pool)
    sys.meta_path.insert(0, finder)
    try:
        out = Backend(pool).forward(1, torch.tensor([3, 1]))
    finally:
        sys.meta_path.remove(finder)
    return {"out": out, "k": pool.k_buffer}
