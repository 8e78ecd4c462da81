"""HAZARD case h_abs_fp8_scale_drift_requantises_layer: if abs(k_scale_drift) > tol: a TRT-LLM-style FP8 calibrator's ScaleDrift.__abs__ folds the pending rescale into the layer in place (halving it) before it reports the drift."""
import torch

KIND = "hazard"
FAMILY = "an operator or builtin not used in rounds 7-14 runs a dunder of an engine object that writes the pool"


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
class ScaleDrift:
    """FP8 KV calibration: the running amax has drifted from the scale the cache was quantised with. Reading
    the drift's magnitude first folds the pending rescale into the layer, so the drift is measured against
    the scale in effect."""

    def __init__(self, pool, layer_id, pending_ratio):
        self.pool = pool
        self.layer_id = layer_id
        self.pending_ratio = pending_ratio
        self.applied_ratio = 1.0

    def __abs__(self):
        if self.pending_ratio != 1.0:
            layer_k = self.pool.k_buffer[self.layer_id]
            layer_k.copy_((layer_k.float() / self.pending_ratio).to(layer_k.dtype))
            self.applied_ratio = self.pending_ratio
            self.pending_ratio = 1.0
        return abs(self.applied_ratio - 1.0)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.k_scale_drift = helper
        self.recalib_tol = 0.5
        self.num_recalibrations = 0

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        kv_indices = forward_batch.kv_indices
        if abs(self.k_scale_drift) > self.recalib_tol:
            self.num_recalibrations += 1
        return k[kv_indices, :, :], self.num_recalibrations


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = ScaleDrift(pool, 1, 2.0)
    backend = DecodeBackend(pool, helper)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
