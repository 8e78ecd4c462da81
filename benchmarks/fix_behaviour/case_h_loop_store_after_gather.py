"""HAZARD case h_loop_store_after_gather: loop: gather then store in the same iteration; the next iteration's gather follows the store."""
import torch

KIND = "hazard"
FAMILY = "loop back-edge"


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

class SpecVerifyBackend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def verify(self, layer_id, steps):
        k_cache = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        outs = []
        for kv_indices, out_loc, k_new in steps:
            outs.append(k_cache[kv_indices])
            self.token_to_kv_pool.k_buffer[layer_id][out_loc] = k_new.to(torch.float8_e4m3fn)
        return outs


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = SpecVerifyBackend(pool)
    steps = [(torch.tensor([1, 2]), torch.tensor([3]), _rand((1, 2, 4), 20)),
             (torch.tensor([1, 2, 3]), torch.tensor([4]), _rand((1, 2, 4), 21)),
             (torch.tensor([3, 4]), torch.tensor([5]), _rand((1, 2, 4), 22))]
    out = be.verify(0, steps)
    return {"out": out, "k": pool.k_buffer}
