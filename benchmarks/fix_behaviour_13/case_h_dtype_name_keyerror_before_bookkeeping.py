"""HAZARD case h_dtype_name_keyerror_before_bookkeeping: `.to(_KV_COMPUTE_DTYPES[self.kv_compute_dtype_name])` with a misconfigured name raises KeyError before the req_to_token bookkeeping; moved, the bookkeeping is written before the error and the scheduler, which catches the step's error, sees it."""
import torch

KIND = "hazard"
FAMILY = "the cast's dtype argument is a call with an effect, and moved it runs after the gather: the planner's first query for a layer calibrates it (rescaling its FP8 rows in place), so the gather now reads uncalibrated rows; a mixed-precision policy records each decision and the code between sizes the workspace from the record; the dtype-name lookup raises KeyError before the step's req_to_token bookkeeping (moved, the bookkeeping is written first and the scheduler sees it)"


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
_KV_COMPUTE_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


class DecodeBackend:
    def __init__(self, token_to_kv_pool, req_to_token, kv_compute_dtype_name):
        self.token_to_kv_pool = token_to_kv_pool
        self.req_to_token = req_to_token
        self.kv_compute_dtype_name = kv_compute_dtype_name

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(_KV_COMPUTE_DTYPES[self.kv_compute_dtype_name])
        kv_indices = forward_batch.kv_indices
        self.req_to_token[forward_batch.req_pool_idx, forward_batch.seq_len] = forward_batch.out_cache_loc
        return k[kv_indices], 0


class Scheduler:
    """Runs a decode step; a failed step is recorded and its batch aborted, the server keeps running."""

    def __init__(self, backend):
        self.backend = backend
        self.errors = []

    def run_step(self, q, layer, forward_batch):
        try:
            return self.backend.forward_decode(q, layer, forward_batch)
        except KeyError as e:
            self.errors.append(f"KeyError: {e}")
            return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.req_pool_idx, fb.seq_len = 0, 2
    req_to_token = torch.zeros(4, 8, dtype=torch.int64)
    scheduler = Scheduler(DecodeBackend(pool, req_to_token, "fp8_e5m2"))
    out = scheduler.run_step(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "errors": scheduler.errors, "req_to_token": req_to_token, "k": pool.k_buffer}
