"""HAZARD case h_float_delayed_k_scale_requantises: float(layer.k_scale) on a delayed FP8 scale folds the amax history in and requantises the layer's cached K to the new scale."""
import torch

KIND = "hazard"
FAMILY = "a dunder not used in rounds 7-12, run by a builtin, an operator or a library call on an engine object, writes the pool: __missing__ of a block-table dict subclass (swap-in), __dlpack__ under torch.from_dlpack (a NIXL-style read descriptor completes its read), __float__ of a delayed FP8 K scale (requantises the layer), __length_hint__ under list() (the ready-chunk view polls its completion queue), __ior__ of a resident-page set (copies arrived pages in), __imatmul__ of a low-rank KV basis (re-projects live rows), __sizeof__ under sys.getsizeof (the host tier flushes its write-back)"


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
class DelayedKScale:
    """Per-layer FP8 K scale with delayed calibration (TRT-LLM style): the amax history is folded into
    the scale the first time it is read as a number, and the layer's cached K is requantised to it."""

    def __init__(self, pool, layer_id, scale, calibrated):
        self.pool = pool
        self.layer_id = layer_id
        self.scale = scale
        self.pending = calibrated

    def __float__(self):
        if self.pending is not None:
            layer_k = self.pool.k_buffer[self.layer_id]
            requant = layer_k.float() * (self.scale / self.pending)
            layer_k.copy_(requant.to(layer_k.dtype))
            self.scale, self.pending = self.pending, None
        return float(self.scale)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()
        kv_indices = forward_batch.kv_indices
        sm_scale = layer.head_dim ** -0.5 * float(layer.k_scale)
        return torch.index_select(k, 0, kv_indices), sm_scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = DelayedKScale(pool, 1, 1.0, 2.0)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1, k_scale=helper), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
