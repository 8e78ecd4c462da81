"""HAZARD case h_complex_cast_warning_as_error_counter: under filterwarnings('error', ...) the whole-pool .float() raises UserWarning before self.reads += 1; moved, the counter runs first."""
import torch

KIND = "hazard"
FAMILY = "a cast to a convertible dtype that warns (a complex pool: 'discards the imaginary part'), the warning an error under a warnings filter: the cast raises, and code between runs first when moved"


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

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.reads = 0

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.reads += 1
        return k[kv_indices]


def run_case(torch):
    import warnings

    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.complex64)
    be = Backend(pool)
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # the cast's warning is a warn-once in C++: warn on every run
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="Casting complex values")
            try:
                out = be.forward(1, torch.tensor([3, 1]))
            except UserWarning as e:
                out = str(e)[:40]
    finally:
        torch.set_warn_always(warn_always)
    return {"out": out, "reads": be.reads, "k": pool.k_buffer}
