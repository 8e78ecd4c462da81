"""SAFE case s_vllm_paged: vLLM-style forward(query, key, value, kv_cache, attn_metadata): key_cache.to(query.dtype)[block_table]."""
import torch

KIND = "safe"
FAMILY = "safe: vLLM paged"


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

class AttnMetadata:
    def __init__(self, block_table):
        self.block_table = block_table


class TorchSDPABackendImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        key_cache, value_cache = kv_cache.unbind(0)
        k = key_cache.to(query.dtype)[attn_metadata.block_table]
        v = value_cache.to(query.dtype)[attn_metadata.block_table]
        return k, v


def run_case(torch):
    g = torch.Generator().manual_seed(0)
    kv_cache = torch.randn(2, 8, 4, 2, 4, generator=g).to(torch.float8_e4m3fn)
    q = _rand((3, 2, 4), 1)
    md = AttnMetadata(torch.tensor([[1, 3], [0, 7]]))
    out = TorchSDPABackendImpl().forward(None, q, None, None, kv_cache, md)
    return {"out": out, "kv_cache": kv_cache}
