"""HAZARD case h_warnings_showwarning_hook_rescales_saturated: warnings.warn(FP8SaturationWarning) reaches a numerics watchdog's showwarning hook, which rescales the saturated slot in place."""
import torch

KIND = "hazard"
FAMILY = "a library function or hook not used in rounds 7-13 calls engine code that writes the pool"


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
import contextlib
import warnings


class FP8SaturationWarning(UserWarning):
    pass


class NumericsWatchdog:
    """Installed around a step: catches FP8 saturation warnings raised by the kernels' host-side checks
    and halves the saturated slot's K in place (a cheap re-quantisation until the next calibration)."""

    def __init__(self, pool, layer_id, slot):
        self.pool = pool
        self.layer_id = layer_id
        self.slot = slot
        self.seen = []

    @contextlib.contextmanager
    def watch(self):
        with warnings.catch_warnings():
            warnings.simplefilter("always", FP8SaturationWarning)
            warnings.showwarning = self._on_warning
            yield self

    def _on_warning(self, message, category, filename, lineno, file=None, line=None):
        if issubclass(category, FP8SaturationWarning):
            row = self.pool.k_buffer[self.layer_id][self.slot]
            self.pool.k_buffer[self.layer_id][self.slot] = row.to(torch.float32) * 0.5
            self.seen.append(str(message))


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.check_saturation = True

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()
        kv_indices = forward_batch.kv_indices
        if self.check_saturation:
            warnings.warn(f"layer {layer.layer_id}: K saturated at slot 3", FP8SaturationWarning)
        return k.index_select(0, kv_indices), self.helper.seen


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = NumericsWatchdog(pool, 1, 3)
    backend = DecodeBackend(pool, helper)
    with helper.watch():
        out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
