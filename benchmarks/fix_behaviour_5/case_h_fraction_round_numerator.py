"""HAZARD case h_fraction_round_numerator: round(budget): Fraction.__round__ reads self.numerator, a property of the file's Fraction subclass that settles pending K stores."""
import torch

KIND = "hazard"
FAMILY = "a library dunder (a stdlib base class, mixin or generated method) calls code of the file that the construct's own dunder names do not show"


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

import fractions


class TokenBudget(fractions.Fraction):
    """A fractional page budget; its numerator is settled lazily (pending KV stores land first)."""

    pool = None

    @property
    def numerator(self):
        if TokenBudget.pool is not None:
            TokenBudget.pool.k_buffer[1][3] = 0.5
        return self._numerator

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, budget):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        pages = round(budget)
        return k[kv_indices], pages


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    budget = TokenBudget(7, 2)
    TokenBudget.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), budget)
    return {"out": out, "k": pool.k_buffer}
