"""HAZARD case h_setattr_out_cache_loc_stores_pending: assigning forward_batch.out_cache_loc runs the batch's __setattr__, which stores the K pending for the old location before moving on."""
import torch

KIND = "hazard"
FAMILY = "a dunder protocol of an engine object, not used in rounds 7-10, runs engine code that writes the pool: a req-to-token table's __getitem__ pages an offloaded row back in, a Req's __lt__ under heapq.heappush loads back the matched prefix, a running batch's __reversed__ commits deferred K, a metadata class's __getattribute__ lands the async metadata copy, a ForwardBatch __setattr__ on out_cache_loc stores the pending K, a layer handle's __index__ waits for the layer's load, a device scalar's __int__ drains the copy engine, an interned lease's __new__ recycles its slot"


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
class OverlapForwardBatch(ForwardBatch):
    """Overlap scheduling: the previous step's K is stored lazily, when the next location is assigned."""

    def __setattr__(self, name, value):
        if name == "out_cache_loc" and getattr(self, "pending_k", None) is not None:
            self.token_to_kv_pool.k_buffer[1][self.out_cache_loc] = self.pending_k.to(self.token_to_kv_pool.dtype)
            object.__setattr__(self, "pending_k", None)
        object.__setattr__(self, name, value)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.next_out_cache_loc = torch.tensor([9])

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        kv_indices = forward_batch.kv_indices
        forward_batch.out_cache_loc = self.next_out_cache_loc
        return k[forward_batch.kv_indices], 0


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = OverlapForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.pending_k = torch.full((2, 4), 3.0)
    helper = None
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
