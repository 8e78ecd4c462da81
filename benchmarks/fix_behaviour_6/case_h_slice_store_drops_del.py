"""HAZARD case h_slice_store_drops_del: pending[:] = [] between, pending a local list holding the only reference to a StagedRow: the slice store drops it (its __del__ writes)."""
import torch

KIND = "hazard"
FAMILY = "the last reference to an object with a __del__ of the file is dropped by a binding that is not an assignment, a for target or a walrus: an `except ... as e` target, `import ... as e`, a `def e`, a slice store emptying the list that held it"


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

class StagedRow:
    """Drops its staged K row into the pool when it is collected."""

    def __init__(self, pool):
        self.pool = pool

    def __del__(self):
        self.pool.k_buffer[1][3] = 0.5


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        pending = [StagedRow(self.token_to_kv_pool)]
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        pending[:] = []
        return k[kv_indices], len(pending)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
