"""HAZARD case h_cached_property_paged_metadata_zero_tail: the first read of a functools.cached_property kv_last_page_len zero-fills the unused tail of the last page (the paged kernel reads whole pages)."""
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
import functools


class PagedDecodeState:
    """Per-step state of a paged decode kernel (page_size 4); metadata is computed once per step."""

    def __init__(self, kv_pool, layer_id, page_table, seq_len, page_size=4):
        self.kv_pool, self.layer_id = kv_pool, layer_id
        self.page_table, self.seq_len, self.page_size = page_table, seq_len, page_size

    @functools.cached_property
    def kv_last_page_len(self):
        n = self.seq_len % self.page_size or self.page_size
        last = self.page_table[-1]
        tail = torch.arange(last * self.page_size + n, (last + 1) * self.page_size)
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[tail] = torch.zeros(tail.numel(), 2, 4).to(dst.dtype)
        return n


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        last_page_len = self.helper.kv_last_page_len
        return k[forward_batch.kv_indices], last_page_len


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = PagedDecodeState(pool, 1, [0], 3)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
