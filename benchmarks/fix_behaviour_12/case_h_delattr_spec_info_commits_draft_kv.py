"""HAZARD case h_delattr_spec_info_commits_draft_kv: `del forward_batch.spec_info` after verify runs the ForwardBatch subclass's __delattr__, which commits the accepted draft K."""
import torch

KIND = "hazard"
FAMILY = "a dunder not used in rounds 7-11, run by an operator or builtin on an engine object, writes the pool: __rmatmul__ of a fused k_proj-and-store weight, __radd__ under sum() of in-flight chunks, __divmod__ of a seq-lens tracker, __fspath__ of a snapshot handle under os.path.join, __bytes__ of a transferred chunk under zlib.crc32, __str__ under print(), __delitem__ of a req-to-token pool, __delattr__ of a ForwardBatch subclass"


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
class EagleVerifyInfo:
    def __init__(self, layer_id, accepted_loc, accepted_k):
        self.layer_id = layer_id
        self.accepted_loc = accepted_loc
        self.accepted_k = accepted_k

    def commit(self, pool):
        pool.k_buffer[self.layer_id][self.accepted_loc] = self.accepted_k.to(pool.dtype)


class SpecForwardBatch(ForwardBatch):
    """A ForwardBatch that carries speculative info; dropping it commits what verify accepted."""

    def __delattr__(self, name):
        if name == "spec_info":
            self.__dict__["spec_info"].commit(self.token_to_kv_pool)
        super().__delattr__(name)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).double()
        kv_indices = forward_batch.kv_indices
        del forward_batch.spec_info
        return k.index_select(0, kv_indices), 0


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = SpecForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.spec_info = EagleVerifyInfo(1, 3, torch.full((2, 4), 3.0))
    helper = None
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
