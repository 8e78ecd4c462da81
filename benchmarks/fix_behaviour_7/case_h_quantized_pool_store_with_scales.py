"""HAZARD case h_quantized_pool_store_with_scales: a quantized pool's set_kv_buffer writes the FP8 rows and their scales; the backend casts K, stores, then gathers K and the scales."""
import torch

KIND = "hazard"
FAMILY = "an in-place quantize/requantize helper of a quantized cache writes the buffer: a per-layer scale update that requantizes the layer in place, scaled_fp8_quant(..., output=<a narrow of the pool>), a quantized pool's set_kv_buffer that also writes the scales"


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
class QuantizedKVPool(MHATokenToKVPool):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.k_scale_buffer = [torch.ones(self.size, 1, 1) for _ in self.k_buffer]

    def get_key_scale_buffer(self, layer_id):
        return self.k_scale_buffer[layer_id]

    def set_kv_buffer(self, layer_id, loc, cache_k, cache_v):
        amax = cache_k.abs().amax(dim=(-1, -2), keepdim=True).clamp(min=1e-6)
        scale = amax / 448.0
        self.k_scale_buffer[layer_id][loc] = scale
        self.k_buffer[layer_id][loc] = (cache_k / scale).to(self.dtype)
        self.v_buffer[layer_id][loc] = (cache_v / scale).to(self.dtype)


class QuantDecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_decode(self, q, k_new, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        self.token_to_kv_pool.set_kv_buffer(layer.layer_id, forward_batch.out_cache_loc, k_new, k_new)
        scales = self.token_to_kv_pool.get_key_scale_buffer(layer.layer_id)[forward_batch.kv_indices]
        return k[forward_batch.kv_indices] * scales


def run_case(torch):
    pool = QuantizedKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = QuantDecodeBackend(pool).forward_decode(_rand((2, 2, 4), 5), torch.full((1, 2, 4), 0.5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "scales": pool.k_scale_buffer}
