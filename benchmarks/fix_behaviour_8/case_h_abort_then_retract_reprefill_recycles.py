"""HAZARD case h_abort_then_retract_reprefill_recycles: an aborted request's slots go back to the allocator and a retracted request's re-prefill writes into them."""
import torch

KIND = "hazard"
FAMILY = "the token allocator reuses a slot freed earlier in the same step: a finished request's slots are freed, the next alloc returns slot 3 and the new token's K is written there; an aborted request's pages are recycled by a retracted request's re-prefill"


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
class TokenToKVPoolAllocator:
    """sglang-style allocator: a free list of slots; free() pushes to the front (hot slots reused first)."""

    def __init__(self, size):
        self.free_slots = list(range(8, size))

    def alloc(self, need):
        if need > len(self.free_slots):
            return None
        out, self.free_slots = self.free_slots[:need], self.free_slots[need:]
        return torch.tensor(out)

    def free(self, loc):
        self.free_slots = [int(i) for i in loc.tolist()] + self.free_slots


class Scheduler:
    def __init__(self, allocator, kv_pool):
        self.allocator = allocator
        self.kv_pool = kv_pool
        self.req_slots = {"abort-me": torch.tensor([3, 5])}

    def abort_request(self, rid):
        self.allocator.free(self.req_slots.pop(rid))

    def reprefill_retracted(self, layer_id, rows):
        loc = self.allocator.alloc(rows.shape[0])
        self.kv_pool.k_buffer[layer_id][loc] = rows.to(self.kv_pool.dtype)
        return loc


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        self.helper.abort_request("abort-me")
        new_loc = self.helper.reprefill_retracted(layer.layer_id, torch.full((2, 2, 4), 0.5))
        return k[forward_batch.kv_indices], new_loc


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    helper = Scheduler(TokenToKVPoolAllocator(16), pool)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
