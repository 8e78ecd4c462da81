"""HAZARD case h_missing_block_table_swap_in: `self.helper[rid]` on a block-table dict subclass whose __missing__ swaps the preempted request's blocks back in from the CPU tier."""
import torch

KIND = "hazard"
FAMILY = "a dunder not used in rounds 7-12, run by a builtin, an operator or a library call on an engine object, writes the pool: __missing__ of a block-table dict subclass (swap-in), __dlpack__ under torch.from_dlpack (a NIXL-style read descriptor completes its read), __float__ of a delayed FP8 K scale (requantises the layer), __length_hint__ under list() (the ready-chunk view polls its completion queue), __ior__ of a resident-page set (copies arrived pages in), __imatmul__ of a low-rank KV basis (re-projects live rows), __sizeof__ under sys.getsizeof (the host tier flushes its write-back)"


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
class BlockTableCache(dict):
    """vLLM-style per-request block tables. A request preempted by swapping has no entry here; looking it
    up swaps its blocks back in from the CPU tier (the saved rows are copied into its GPU slots)."""

    def __init__(self, pool, cpu_tier):
        super().__init__()
        self.pool = pool
        self.cpu_tier = cpu_tier  # req_id -> [(layer_id, slot, host_row)]

    def __missing__(self, req_id):
        slots = []
        for layer_id, slot, host_row in self.cpu_tier.pop(req_id):
            self.pool.k_buffer[layer_id][slot] = host_row.to(self.pool.dtype)
            slots.append(slot)
        self[req_id] = slots
        return slots


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        kv_indices = forward_batch.kv_indices
        block_ids = self.helper[forward_batch.rids[0]]
        return k[kv_indices], block_ids


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.rids = ["req-7"]
    helper = BlockTableCache(pool, {"req-7": [(1, 3, torch.full((2, 4), 3.0))]})
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
