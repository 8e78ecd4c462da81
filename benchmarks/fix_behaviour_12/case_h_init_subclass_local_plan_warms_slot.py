"""HAZARD case h_init_subclass_local_plan_warms_slot: a per-shape plan class defined inside forward_decode runs DecodePlan.__init_subclass__, which zeroes the plan's scratch slot."""
import torch

KIND = "hazard"
FAMILY = "class machinery not used in rounds 7-11 runs engine code that writes the pool: a local class statement runs the base's __init_subclass__ (registration warms the plan's scratch slot); isinstance() against an abc.ABC runs its __subclasshook__, which binds the duck-typed connector class and lands its queue; an Enum member looked up by value runs the member's method"


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
class DecodePlan:
    """Base of per-shape decode plans. Defining a plan registers it and warms (zeroes) its scratch slot."""

    registry = {}
    pool = None

    def __init_subclass__(cls, layer_id=0, scratch_slot=None, **kwargs):
        super().__init_subclass__(**kwargs)
        DecodePlan.registry[cls.__name__] = cls
        if scratch_slot is not None and DecodePlan.pool is not None:
            DecodePlan.pool.k_buffer[layer_id][scratch_slot] = torch.zeros(2, 4).to(DecodePlan.pool.dtype)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16, copy=True)
        kv_indices = forward_batch.kv_indices
        class _Bs2Plan(DecodePlan, layer_id=layer.layer_id, scratch_slot=3):
            batch_size = 2

        plan_bs = _Bs2Plan.batch_size
        return torch.index_select(k, 0, kv_indices), plan_bs


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    DecodePlan.registry = {}
    DecodePlan.pool = pool
    helper = None
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
