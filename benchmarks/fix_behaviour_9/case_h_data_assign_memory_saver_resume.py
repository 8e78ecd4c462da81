"""HAZARD case h_data_assign_memory_saver_resume: a memory-saver pause/resume cycle (colocated RL weight sync) between the cast and the gather re-points the KV tensors with `.data =` (released, then re-mapped to fresh zeroed pages)."""
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
class MemorySaver:
    """torch_memory_saver-like: pause releases the physical memory of a region's tensors, resume maps
    fresh (zeroed) pages back; the tensor objects stay the same."""

    def __init__(self):
        self.regions, self.shapes = {}, {}

    def register(self, tag, tensors):
        self.regions[tag] = tensors
        self.shapes[tag] = [t.shape for t in tensors]

    def pause(self, tag):
        for t in self.regions[tag]:
            t.data = torch.empty(0, dtype=t.dtype)

    def resume(self, tag):
        for t, shape in zip(self.regions[tag], self.shapes[tag]):
            t.data = torch.zeros(shape, dtype=t.dtype)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        if self.helper.regions:
            self.helper.pause("kv_cache")
            self.helper.resume("kv_cache")
        return k[forward_batch.kv_indices], 0


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = MemorySaver()
    helper.register("kv_cache", pool.k_buffer + pool.v_buffer)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
