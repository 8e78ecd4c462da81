"""HAZARD case h_classmethod_property_read: type(meta).pending, a getter under @classmethod stacked on @property (Python 3.9-3.12 run it on a class attribute read)."""
import torch

KIND = "hazard"
FAMILY = "a member read runs a getter through a library descriptor that the property list does not name: abc.abstractproperty, types.DynamicClassAttribute, enum.property, builtins.property, classmethod stacked on property"


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

import functools  # noqa: F401


class StepMeta:
    pool = None

    def __init__(self, n):
        self.n = n

    @classmethod
    @property
    def pending(self):
        # reading the pending count first commits the staged K row
        StepMeta.pool.k_buffer[1][3] = 0.5
        return 2


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, meta):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = type(meta).pending
        return k[kv_indices], n


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    StepMeta.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), StepMeta(2))
    return {"out": out, "k": pool.k_buffer}
