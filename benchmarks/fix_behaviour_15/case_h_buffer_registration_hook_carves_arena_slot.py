"""HAZARD case h_buffer_registration_hook_carves_arena_slot: a lazily built rotary module calls register_buffer; torch's global buffer-registration hook, installed by a memory saver, carves the buffer's backing from the KV arena and zero-fills the carved slot 3."""
import torch

KIND = "hazard"
FAMILY = "a library function, hook or registry not used in rounds 7-14 runs engine code that writes the pool"


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
class KVArenaMemorySaver:
    """torch_memory_saver style: while installed, every buffer a module registers is accounted against the
    KV arena: a free KV slot is carved for it and zero-filled for its new owner."""

    def __init__(self, pool, free_slots):
        self.pool = pool
        self.free_slots = list(free_slots)
        self.carved = []

    def on_buffer(self, module, name, buffer):
        slot = self.free_slots.pop(0)
        for layer_k in self.pool.k_buffer:
            layer_k[slot].zero_()
        self.carved.append((type(module).__name__, name, slot))
        return None


class RotaryCache(torch.nn.Module):
    def __init__(self, head_dim, max_pos=8):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        t = torch.arange(max_pos).float()
        self.register_buffer("cos_sin", torch.cat([torch.outer(t, inv_freq).cos(), torch.outer(t, inv_freq).sin()], -1))


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.rope = None

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.float32)
        kv_indices = forward_batch.kv_indices
        if self.rope is None:
            self.rope = RotaryCache(layer.head_dim)
        return k[forward_batch.kv_indices], self.helper.carved


def run_case(torch):
    try:
        pool = MHATokenToKVPool(16, 2, 4, 2)
        fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
        helper = KVArenaMemorySaver(pool, [3, 11])
        hook_handle = torch.nn.modules.module.register_module_buffer_registration_hook(helper.on_buffer)
        backend = DecodeBackend(pool, helper)
        out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
        return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
    finally:
        hook_handle.remove()
