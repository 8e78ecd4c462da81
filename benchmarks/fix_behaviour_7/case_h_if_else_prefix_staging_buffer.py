"""HAZARD case h_if_else_prefix_staging_buffer: decode: k = pool K .float(); extend: k = the bf16 prefix staging buffer; wrapper.run(q, k[idx]) - moved, the extend path's bf16 rows become float32."""
import torch

KIND = "hazard"
FAMILY = "the cast variable joins a second buffer from another branch (an if/else on the forward mode, a try/except fallback, a match on the attention kind, a per-layer loop that keeps the first layer's cast): moving the cast to the gather converts the other branch's buffer too, or a later layer reads the stored rows"


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
class PrefixStager:
    def __init__(self):
        self.prefix_k = _rand((16, 2, 4), 11)


class PlanRunWrapper:
    def plan(self, kv_indices):
        self.kv_indices = kv_indices

    def run(self, q, k_rows):
        return k_rows


class Backend:
    def __init__(self, token_to_kv_pool, stager):
        self.token_to_kv_pool = token_to_kv_pool
        self.stager = stager
        self.wrapper = PlanRunWrapper()

    def forward(self, q, layer, forward_batch):
        if forward_batch.forward_mode == "decode":
            k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        else:
            k = self.stager.prefix_k
        self.wrapper.plan(forward_batch.kv_indices)
        return self.wrapper.run(q, k[forward_batch.kv_indices])


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]), forward_mode="extend")
    out = Backend(pool, PrefixStager()).forward(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
