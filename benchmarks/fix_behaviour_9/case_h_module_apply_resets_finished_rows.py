"""HAZARD case h_module_apply_resets_finished_rows: model.apply(fn) with a function that zeroes the finished requests' rows of every KVCache module."""
import torch

KIND = "hazard"
FAMILY = "the KV cache is registered as buffers of the model's modules (gpt-fast / HF StaticCache style) and a module-level operation between the cast and the gather reaches it: load_state_dict of a LoRA checkpoint that also holds the persistent cache buffers, model.apply(reset), a reset_parameters() loop over model.modules()"


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
class KVCache(torch.nn.Module):
    """gpt-fast-style cache module: the K/V caches are registered buffers."""

    def __init__(self, size, heads, dim, dtype, g):
        super().__init__()
        self.register_buffer("k_cache", torch.randn(size, heads, dim, generator=g).to(dtype))
        self.register_buffer("v_cache", torch.randn(size, heads, dim, generator=g).to(dtype))

    def reset_parameters(self):
        self.k_cache.zero_()
        self.v_cache.zero_()


class LoRALinear(torch.nn.Module):
    def __init__(self, d, r):
        super().__init__()
        self.lora_a = torch.nn.Parameter(torch.ones(r, d))
        self.lora_b = torch.nn.Parameter(torch.ones(d, r))

    def reset_parameters(self):
        torch.nn.init.zeros_(self.lora_b)


class Attention(torch.nn.Module):
    def __init__(self, g):
        super().__init__()
        self.kv_cache = KVCache(16, 2, 4, torch.float8_e4m3fn, g)
        self.wq_lora = LoRALinear(8, 2)


class Transformer(torch.nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.layers = torch.nn.ModuleList([Attention(g) for _ in range(n_layers)])


class ModuleKVPool:
    """The backend's view of the model's cache modules, with the usual pool accessors."""

    def __init__(self, model):
        self.model = model
        self.dtype = torch.float8_e4m3fn

    @property
    def k_buffer(self):
        return [layer.kv_cache.k_cache for layer in self.model.layers]

    def get_key_buffer(self, layer_id):
        return self.model.layers[layer_id].kv_cache.k_cache


def make_row_reset(rows):
    def reset(module):
        if isinstance(module, KVCache):
            module.k_cache[rows] = torch.zeros(rows.numel(), 2, 4).to(module.k_cache.dtype)
    return reset


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        self.helper.apply(make_row_reset(torch.tensor([3, 5])))
        return k[forward_batch.kv_indices], 0


def run_case(torch):
    pool = ModuleKVPool(Transformer())
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = pool.model
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
