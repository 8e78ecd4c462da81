"""HAZARD case h_max_gt_result_bool: max(a, b): max tests the result of __gt__ (read-only) by its __bool__ (writes)."""
import torch

KIND = "hazard"
FAMILY = "a dunder's result runs another dunder that the construct's list does not name: __len__'s result is converted by its __index__, a rich comparison's result is tested by its __bool__"


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

class Verdict:
    """A comparison outcome settled lazily: testing it commits the staged K row first."""

    def __init__(self, pool):
        self.pool = pool

    def __bool__(self):
        self.pool.k_buffer[1][3] = 0.5
        return True


class Req:
    def __init__(self, pool, prio):
        self.prio = prio
        self.verdict = Verdict(pool)

    def __eq__(self, other):
        return self.verdict

    def __lt__(self, other):
        return self.verdict

    def __gt__(self, other):
        return self.verdict

    __hash__ = object.__hash__


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        top = max(a, b).prio
        return k[kv_indices], top


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)

    out = Backend(pool).forward(1, torch.tensor([3, 1]), Req(pool, 1), Req(pool, 2))
    return {"out": out, "k": pool.k_buffer}
