"""HAZARD case h_isinstance_bases_property_cls: isinstance(3, spec), spec an object with a __bases__ property as the class: the check reads it (writes)."""
import torch

KIND = "hazard"
FAMILY = "isinstance / issubclass read attributes that their dunder list does not name: the instance's __class__ through the file's __getattribute__, a class-like object's __bases__ property"


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

class ClassSpec:
    """A class-like spec object; its bases are resolved lazily (the staged K row is committed first)."""

    pool = None

    @property
    def __bases__(self):
        ClassSpec.pool.k_buffer[1][3] = 0.5
        return ()


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, spec):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        inst = isinstance(3, spec)
        return k[kv_indices], inst


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    ClassSpec.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), ClassSpec())
    return {"out": out, "k": pool.k_buffer}
