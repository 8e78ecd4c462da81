"""SAFE case s_trtllm_index_select: kv_cache_manager.get_buffers(l).float().index_select(0, block_ids)."""
import torch

KIND = "safe"
FAMILY = "safe: TRT-LLM get_buffers().float().index_select"


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

class KVCacheManager:
    def __init__(self, layers):
        g = torch.Generator().manual_seed(0)
        self.bufs = [torch.randn(6, 2, 4, 2, 4, generator=g).to(torch.float8_e4m3fn) for _ in range(layers)]

    def get_buffers(self, layer_idx):
        return self.bufs[layer_idx]


class TrtllmAttention:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def forward(self, layer_idx, block_ids):
        return self.kv_cache_manager.get_buffers(layer_idx).float().index_select(0, block_ids)


def run_case(torch):
    mgr = KVCacheManager(2)
    out = TrtllmAttention(mgr).forward(1, torch.tensor([5, 0, 5]))
    return {"out": out, "bufs": mgr.bufs}
