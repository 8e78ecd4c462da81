"""HAZARD case h_pool_wrapper_getitem: the accessor returns a paged wrapper: .float() is token-major, [i] selects pages."""
import torch

KIND = "hazard"
FAMILY = "pool is a Python object whose __getitem__ indexes pages"


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

class PagedBuffer:
    def __init__(self, pages):
        self.pages = pages

    def float(self):
        return self.pages.float().flatten(0, 1)

    def __getitem__(self, page_ids):
        return PagedBuffer(self.pages[page_ids])


class PagedPool:
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.pages = torch.randn(4, 4, 2, 4, generator=g).to(torch.float8_e4m3fn)

    def get_key_buffer(self, layer_id):
        return PagedBuffer(self.pages)

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]


def run_case(torch):
    pool = PagedPool()
    try:
        out = Backend(pool).forward(0, torch.tensor([1, 2]))
    except AttributeError as e:
        out = str(e)
    return {"out": out, "pages": pool.pages}
