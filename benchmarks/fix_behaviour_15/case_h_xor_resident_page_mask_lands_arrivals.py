"""HAZARD case h_xor_resident_page_mask_lands_arrivals: missing = resident_pages ^ prefix_pages: HiCache's ResidentPages.__xor__ lands the load-backs that arrived (writing slot 3) so that the mask is exact."""
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
class ResidentPages:
    """HiCache: which device pages hold a request's cached prefix. Host-to-device load-backs finish
    asynchronously; set algebra on the mask first lands what has arrived, so that the answer is exact."""

    def __init__(self, pool, pages):
        self.pool = pool
        self.pages = set(pages)
        self.arrived = []

    def on_arrival(self, layer_id, page, k_row):
        self.arrived.append((layer_id, page, k_row))

    def _land(self):
        for layer_id, page, k_row in self.arrived:
            self.pool.k_buffer[layer_id][page] = k_row
            self.pages.add(page)
        self.arrived.clear()

    def __xor__(self, wanted):
        self._land()
        return self.pages ^ set(wanted)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.resident = helper
        self.prefix_pages = {1, 2, 3}

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()
        kv_indices = forward_batch.kv_indices
        missing = sorted(self.resident ^ self.prefix_pages)
        return torch.index_select(k, 0, kv_indices), missing


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = ResidentPages(pool, [1, 2])
    helper.on_arrival(1, 3, torch.full((2, 4), 3.0))
    backend = DecodeBackend(pool, helper)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
