"""HAZARD case h_descriptor_sliding_window_set_releases: layer.sliding_window = w goes through a data descriptor whose __set__ releases (and scrubs) the SWA pool's out-of-window slots when the window shrinks."""
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
class SlidingWindowAttr:
    """Data descriptor for the layer's sliding window: shrinking it releases the slots that fell out of the
    window in the SWA pool, scrubbed so that stale keys never leak into the next request."""

    def __set_name__(self, owner, name):
        self.attr = "_" + name

    def __get__(self, obj, objtype=None):
        return self if obj is None else getattr(obj, self.attr, None)

    def __set__(self, obj, value):
        old = getattr(obj, self.attr, None)
        setattr(obj, self.attr, value)
        if old is not None and value < old:
            obj.swa_pool.release_outside_window(obj.layer_id, value)


class SWAPoolView:
    def __init__(self, kv_pool, slot_order):
        self.kv_pool = kv_pool
        self.slot_order = slot_order  # the running request's slots, oldest first

    def release_outside_window(self, layer_id, window):
        stale = torch.tensor(self.slot_order[: max(0, len(self.slot_order) - window)], dtype=torch.int64)
        dst = self.kv_pool.k_buffer[layer_id]
        dst[stale] = torch.zeros(stale.numel(), 2, 4).to(dst.dtype)


class SWALayer(RadixLayer):
    sliding_window = SlidingWindowAttr()

    def __init__(self, layer_id, swa_pool, window):
        super().__init__(layer_id)
        self.swa_pool = swa_pool
        self.sliding_window = window


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        layer.sliding_window = min(layer.sliding_window, self.helper["decode_window"])
        return k[forward_batch.kv_indices], layer.sliding_window


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = {"decode_window": 2}
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), SWALayer(1, SWAPoolView(pool, [3, 1, 8, 9]), 8), fb)
    return {"out": out, "k": pool.k_buffer}
