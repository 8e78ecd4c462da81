"""HAZARD case h_as_strided_inplace_hnd_relayout: switching to a backend that wants HND re-strides the layer in place with as_strided_ (the storage is reinterpreted as [heads, slots, dim]); slot 3 now reads other elements."""
import torch

KIND = "hazard"
FAMILY = "the pool's tensor object is re-pointed or re-strided in place, so the same object now shows other data: Tensor.set_ adopting a migrated buffer, `.data =` on a memory-saver resume, torch.utils.swap_tensors flipping a double buffer, as_strided_ for a backend's HND layout"


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
class LayoutSwitcher:
    """Runtime attention-backend switch: the new backend expects the cache in HND order; the buffers are
    re-strided in place (the data is permuted later by the backend's first kernel)."""

    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.layout = "NHD"

    def to_hnd(self, layer_id):
        if self.layout == "HND":
            return False
        for buf in (self.kv_pool.k_buffer[layer_id], self.kv_pool.v_buffer[layer_id]):
            size, heads, dim = buf.shape
            buf.as_strided_((size, heads, dim), (dim, size * dim, 1))
        self.layout = "HND"
        return True


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        switched = self.helper.to_hnd(layer.layer_id)
        return k[forward_batch.kv_indices], switched


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = LayoutSwitcher(pool)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": [t.contiguous() for t in pool.k_buffer]}
