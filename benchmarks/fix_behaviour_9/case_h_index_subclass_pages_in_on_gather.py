"""HAZARD case h_index_subclass_pages_in_on_gather: forward_batch.kv_indices is a ResidentIndex tensor subclass whose __torch_function__ pages the indexed slots in from the host mirror when it indexes a registered pool buffer (the cast copy is not registered)."""
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
class Residency:
    def __init__(self, kv_pool, layer_id, host_mirror, offloaded):
        self.home = kv_pool.k_buffer[layer_id]
        self.host_mirror, self.offloaded = host_mirror, offloaded

    def page_in(self, index):
        missing = [s for s in index.tolist() if s in self.offloaded]
        if missing:
            idx = torch.tensor(missing)
            self.home[idx] = self.host_mirror[idx].to(self.home.dtype)
            self.offloaded.difference_update(missing)


class ResidentIndex(torch.Tensor):
    """kv_indices of a UVM-style offloaded cache: indexing a registered device buffer with it first makes the
    indexed slots resident."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            if func is torch.Tensor.__getitem__ and isinstance(args[1], ResidentIndex):
                residency = args[1].__dict__.get("residency")
                if residency is not None and args[0] is residency.home:
                    residency.page_in(args[1])
            return func(*args, **(kwargs or {}))


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        bs = forward_batch.batch_size
        return k[forward_batch.kv_indices], bs


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.kv_indices = torch.tensor([3, 1]).as_subclass(ResidentIndex)
    fb.kv_indices.residency = Residency(pool, 1, torch.full((16, 2, 4), 0.5), {3})
    helper = None
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
