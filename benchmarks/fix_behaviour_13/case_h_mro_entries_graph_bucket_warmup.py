"""HAZARD case h_mro_entries_graph_bucket_warmup: `class _BucketPlan(self.helper)` with a CUDA-graph bucket spec as the base runs its __mro_entries__, which warms the bucket up (a dummy decode writes the padding slot)."""
import torch

KIND = "hazard"
FAMILY = "a class statement inside forward_decode runs engine code at class creation: a descriptor field's __set_name__ reserves and clears the attention-sink slot; a base that is an instance runs its __mro_entries__, which warms the CUDA-graph bucket up (writing the padding slot)"


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
class CapturedPlan:
    """The plan class of a captured CUDA-graph bucket."""

    replayable = True


class GraphBucketSpec:
    """A CUDA-graph runner's spec for one batch-size bucket, usable as a base class (like a typing
    alias): subclassing it resolves to the captured plan class, and resolving makes sure the bucket was
    warmed up, which runs a dummy decode that writes the padding slot."""

    def __init__(self, pool, layer_id, pad_slot):
        self.pool = pool
        self.layer_id = layer_id
        self.pad_slot = pad_slot
        self.warmed = False

    def __mro_entries__(self, bases):
        if not self.warmed:
            self.pool.k_buffer[self.layer_id][self.pad_slot] = torch.zeros(2, 4).to(self.pool.dtype)
            self.warmed = True
        return (CapturedPlan,)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16, copy=True)
        kv_indices = forward_batch.kv_indices
        class _BucketPlan(self.helper):
            bs = forward_batch.batch_size
        return torch.index_select(k, 0, kv_indices), (_BucketPlan.__mro__[1].__name__, _BucketPlan.bs)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = GraphBucketSpec(pool, 1, 3)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
