"""HAZARD case h_floordiv_prefill_cursor_waits_chunk_store: prefilled_pages = prefill_cursor // page_size: a chunked-prefill cursor's __floordiv__ waits for the in-flight chunk's KV store (writing slot 3) before it divides."""
import torch

KIND = "hazard"
FAMILY = "an operator or builtin not used in rounds 7-14 runs a dunder of an engine object that writes the pool"


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
class PrefillCursor:
    """Chunked prefill: how far the request being prefilled has got. The chunk's KV store runs on a side
    stream; arithmetic on the cursor waits for it, since the cursor only advances once the chunk landed."""

    def __init__(self, pool, pos):
        self.pool = pool
        self.pos = pos
        self.inflight = None

    def launch_store(self, layer_id, locs, k_rows):
        self.inflight = (layer_id, list(locs), k_rows)

    def _wait(self):
        if self.inflight is not None:
            layer_id, locs, k_rows = self.inflight
            for i, loc in enumerate(locs):
                self.pool.k_buffer[layer_id][loc] = k_rows[i]
            self.pos += len(locs)
            self.inflight = None

    def __floordiv__(self, page_size):
        self._wait()
        return self.pos // page_size


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.prefill_cursor = helper
        self.page_size = 4

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).bfloat16()
        kv_indices = forward_batch.kv_indices
        prefilled_pages = self.prefill_cursor // self.page_size
        return k.index_select(0, kv_indices), prefilled_pages


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = PrefillCursor(pool, 6)
    helper.launch_store(1, [3], torch.full((1, 2, 4), 3.0))
    backend = DecodeBackend(pool, helper)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
