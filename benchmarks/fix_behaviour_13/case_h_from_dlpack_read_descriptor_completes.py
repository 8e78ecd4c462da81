"""HAZARD case h_from_dlpack_read_descriptor_completes: torch.from_dlpack(descriptor) calls the NIXL-style read descriptor's __dlpack__, which completes the remote read into the pool before exporting the landed rows."""
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
class NixlReadDescriptor:
    """A remote KV read posted by the decode worker. Exporting it through DLPack hands out the landed
    rows, so it completes the read (remote rows copied into the local slots) before exporting them."""

    def __init__(self, pool, layer_id, loc, remote_rows):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.remote_rows = remote_rows
        self.done = False

    def _complete(self):
        if not self.done:
            self.pool.k_buffer[self.layer_id][self.loc] = self.remote_rows.to(self.pool.dtype)
            self.done = True

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    def __dlpack__(self, *args, **kwargs):
        self._complete()
        landed = self.pool.k_buffer[self.layer_id][self.loc.min():self.loc.max() + 1]
        return landed.__dlpack__(*args, **kwargs)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).bfloat16()
        kv_indices = forward_batch.kv_indices
        landed = torch.from_dlpack(self.helper)
        return k.index_select(0, kv_indices), landed


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = NixlReadDescriptor(pool, 1, torch.tensor([3]), torch.full((1, 2, 4), 3.0))
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
