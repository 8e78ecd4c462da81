"""HAZARD case h_iadd_seq_lens_reserves_next_slot: forward_batch.seq_lens += 1 on a SeqLens tracker whose __iadd__ reserves the next slot and zero-fills it (the kernel reads one slot ahead)."""
import torch

KIND = "hazard"
FAMILY = "an operator or container protocol on an engine object runs code that writes the pool: `seq_lens += 1` on a tracker whose __iadd__ reserves the next slot, a metadata mapping's __setitem__, len() of a transfer queue that polls, unpickling a transferred chunk (persistent_load lands it), send() to a KV-writer coroutine"


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
class SeqLens:
    """The running batch's sequence lengths. Advancing reserves each request's next slot and writes a clean
    zero key there, since the split-K decode kernel reads one slot past the end."""

    def __init__(self, lens, kv_pool, layer_id, next_loc):
        self.lens, self.kv_pool, self.layer_id, self.next_loc = lens, kv_pool, layer_id, next_loc

    def __iadd__(self, n):
        self.lens = self.lens + n
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[self.next_loc] = torch.zeros(self.next_loc.numel(), 2, 4).to(dst.dtype)
        return self


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        forward_batch.seq_lens += 1
        return k[forward_batch.kv_indices], forward_batch.seq_lens.lens


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.seq_lens = SeqLens(torch.tensor([5, 7]), pool, 1, torch.tensor([3]))
    helper = None
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
