"""HAZARD case h_post_init_metadata_applies_pending_store: constructing a FlashDecodeMetadata dataclass runs __post_init__, which applies the step's deferred K store into out_cache_loc."""
import torch

KIND = "hazard"
FAMILY = "reading or setting an attribute of an engine object runs code that writes the pool: a lazily computed ForwardBatch property, a functools.cached_property of the paged metadata, a data descriptor's __set__ on the layer, hasattr() on a lazy __getattr__ proxy, a metadata dataclass's __post_init__"


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
import dataclasses


@dataclasses.dataclass
class FlashDecodeMetadata:
    """FA3-style decode metadata. Building it is where the overlap scheduler's deferred store of the new
    token's K is applied (it is off the critical path of the previous step)."""
    kv_pool: object
    layer_id: int
    out_cache_loc: torch.Tensor
    pending_k: torch.Tensor
    page_size: int = 4
    max_pages: int = 0

    def __post_init__(self):
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[self.out_cache_loc] = self.pending_k.to(dst.dtype)
        self.max_pages = (int(self.out_cache_loc.max()) + self.page_size) // self.page_size


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        md = FlashDecodeMetadata(self.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc, self.helper)
        return k[forward_batch.kv_indices], md.max_pages


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = torch.full((1, 2, 4), 0.5)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
