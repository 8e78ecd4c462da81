"""HAZARD case h_index_dunder_layer_handle_waits_load: indexing the per-layer scale list with a layer handle calls its __index__, which waits for the layerwise load of that layer (landing its pages)."""
import torch

KIND = "hazard"
FAMILY = "a dunder protocol of an engine object, not used in rounds 7-10, runs engine code that writes the pool: a req-to-token table's __getitem__ pages an offloaded row back in, a Req's __lt__ under heapq.heappush loads back the matched prefix, a running batch's __reversed__ commits deferred K, a metadata class's __getattribute__ lands the async metadata copy, a ForwardBatch __setattr__ on out_cache_loc stores the pending K, a layer handle's __index__ waits for the layer's load, a device scalar's __int__ drains the copy engine, an interned lease's __new__ recycles its slot"


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
class LayerwiseLoader:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.pending = {1: (3, torch.full((2, 4), 3.0))}

    def wait_layer(self, layer_id):
        if layer_id in self.pending:
            slot, row = self.pending.pop(layer_id)
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row


class LayerHandle:
    """A layer id as handed out by the layerwise loader: using it as an index waits for that layer."""

    def __init__(self, layer_id, loader):
        self.layer_id = layer_id
        self.loader = loader

    def __index__(self):
        self.loader.wait_layer(self.layer_id)
        return self.layer_id


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.layer_handles = helper
        self.sm_scales = [0.5, 0.25]

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        kv_indices = forward_batch.kv_indices
        handle = self.layer_handles[layer.layer_id]
        sm_scale = self.sm_scales[handle]
        return k[kv_indices], sm_scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    loader = LayerwiseLoader(pool)
    helper = [LayerHandle(i, loader) for i in range(2)]
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
