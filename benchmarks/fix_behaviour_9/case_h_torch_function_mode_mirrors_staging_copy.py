"""HAZARD case h_torch_function_mode_mirrors_staging_copy: inside `with self.write_through:` (a TorchFunctionMode), self.staging.copy_(new_k) into the backend's own staging buffer is mirrored by the mode into the slot's home row of the pool."""
import torch

KIND = "hazard"
FAMILY = "a torch-function override turns an innocent-looking op into a pool write: a TorchFunctionMode entered around the decode step mirrors copy_ into the backend's staging buffer to the slot's home row in the pool; an index tensor subclass pages slots in from the host mirror when it indexes a pool buffer"


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
from torch.overrides import TorchFunctionMode


class WriteThroughMode(TorchFunctionMode):
    """Unified-memory emulation for the CPU-offload path: in-place copies into a registered staging tensor
    are written through to the staging tensor's home rows in the pool."""

    def __init__(self):
        super().__init__()
        self.mirrors = []

    def register(self, staging, home, loc):
        self.mirrors.append((staging, home, loc))

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.Tensor.copy_:
            for staging, home, loc in self.mirrors:
                if args[0] is staging:
                    home[loc] = staging.to(home.dtype)
        return out


class DecodeBackend:
    def __init__(self, token_to_kv_pool, write_through):
        self.token_to_kv_pool = token_to_kv_pool
        self.write_through = write_through
        self.staging = torch.zeros(1, 2, 4)

    def forward_decode(self, q, layer, forward_batch, new_k):
        with self.write_through:
            k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
            self.staging.copy_(new_k)
            return k[forward_batch.kv_indices], self.staging.clone()


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    backend = DecodeBackend(pool, WriteThroughMode())
    backend.write_through.register(backend.staging, pool.k_buffer[1], fb.out_cache_loc)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb, torch.full((1, 2, 4), 0.5))
    return {"out": out, "k": pool.k_buffer}
