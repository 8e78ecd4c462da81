"""HAZARD case h_bisect_insort_req_lt_syncs_deferred_append: bisect.insort(running_by_len, req): bisect compares req < other with the overlap scheduler's Req.__lt__, which syncs the request's deferred append (storing its K into slot 3)."""
import torch

KIND = "hazard"
FAMILY = "a library function, hook or registry not used in rounds 7-14 runs engine code that writes the pool"


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



class ForwardBatch:
    """Toy sglang-style ForwardBatch: the step's metadata and the pool it writes through."""

    def __init__(self, token_to_kv_pool, kv_indices, out_cache_loc=None, forward_mode="decode"):
        self.token_to_kv_pool = token_to_kv_pool
        self.kv_indices = kv_indices
        self.out_cache_loc = out_cache_loc
        self.forward_mode = forward_mode
        self.batch_size = int(kv_indices.numel())


class RadixLayer:
    """Toy RadixAttention layer: what a backend reads of it."""

    def __init__(self, layer_id, head_dim=4, tp_k_head_num=2, k_scale=None):
        self.layer_id = layer_id
        self.head_dim = head_dim
        self.tp_k_head_num = tp_k_head_num
        self.k_scale = k_scale
import bisect


class Req:
    """A running request; the decode batch is kept sorted by computed length (for a length-bucketed
    kernel). With the overlap scheduler the previous step's KV append is deferred, and comparing two
    requests syncs it first, since the length must be final."""

    def __init__(self, pool, rid, num_computed, deferred=None):
        self.pool = pool
        self.rid = rid
        self.num_computed = num_computed
        self.deferred = deferred

    def _sync(self):
        if self.deferred is not None:
            layer_id, loc, k_row = self.deferred
            self.pool.k_buffer[layer_id][loc] = k_row
            self.num_computed += 1
            self.deferred = None

    def __lt__(self, other):
        self._sync()
        other._sync()
        return self.num_computed < other.num_computed


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.running_by_len = [Req(token_to_kv_pool, 'r0', 2), Req(token_to_kv_pool, 'r1', 9)]
        self.admitted = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).double()
        kv_indices = forward_batch.kv_indices
        bisect.insort(self.running_by_len, self.admitted)
        return k[kv_indices], [r.rid for r in self.running_by_len]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = Req(pool, 'r2', 4, (1, 3, torch.full((2, 4), 3.0)))
    backend = DecodeBackend(pool, helper)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
