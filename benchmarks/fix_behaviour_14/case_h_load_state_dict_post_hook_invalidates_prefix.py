"""HAZARD case h_load_state_dict_post_hook_invalidates_prefix: a LoRA adapter hot-swap with load_state_dict: a post-hook registered by the radix cache invalidates the prefix computed under the old adapter and scrubs its slots."""
import torch

KIND = "hazard"
FAMILY = "a library function or hook not used in rounds 7-13 calls engine code that writes the pool"


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
class LoRAAdapterSlot(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lora_A = torch.nn.Parameter(torch.zeros(2, 8))
        self.lora_B = torch.nn.Parameter(torch.zeros(8, 2))


class AdapterManager:
    """One resident adapter slot (S-LoRA style, tiny). The radix cache registers a load_state_dict
    post-hook: prefixes cached under the previous adapter are stale, their slots are scrubbed."""

    def __init__(self, pool, stale_prefix_slots):
        self.pool = pool
        self.adapter = LoRAAdapterSlot()
        self.active = "base"
        self.weights = {"sql": {"lora_A": torch.ones(2, 8), "lora_B": torch.ones(8, 2)}}
        self.stale_prefix_slots = list(stale_prefix_slots)
        self.adapter.register_load_state_dict_post_hook(self._invalidate_prefix)

    def _invalidate_prefix(self, module, incompatible_keys):
        for loc in self.stale_prefix_slots:
            for layer_buf in self.pool.k_buffer:
                layer_buf[loc] = torch.zeros(2, 4)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.lora_id = "sql"

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).type(torch.bfloat16)
        kv_indices = forward_batch.kv_indices
        if self.helper.active != self.lora_id:
            self.helper.adapter.load_state_dict(self.helper.weights[self.lora_id])
            self.helper.active = self.lora_id
        return k[kv_indices].reshape(2, -1), self.helper.active


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = AdapterManager(pool, [3])
    backend = DecodeBackend(pool, helper)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
