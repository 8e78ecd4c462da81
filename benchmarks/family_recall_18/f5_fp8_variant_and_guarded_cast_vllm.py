"""vLLM-style ROCm impl: e4m3fn cache converted to e4m3fnuz, a dtype-guarded cast, and same-dtype look-alikes."""
import torch


class RocmTritonFnuzImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="fp8"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        key_fnuz = key_cache.view(torch.float8_e4m3fn).to(torch.float8_e4m3fnuz)  # positive: f5 CL001 fp8 to fp8-fnuz converts every block
        key_bits = key_cache.view(torch.float8_e4m3fnuz)  # negative: reinterpretation only
        value_cache = value_cache.to(query.dtype) if value_cache.dtype != query.dtype else value_cache  # positive: f5 CL001 guarded cast of the whole value plane
        key_same = key_cache.to(key_cache.dtype)  # negative: same dtype
        return self._decode(query, key_fnuz, value_cache, key_bits, key_same, attn_metadata)

    def _decode(self, query, key_fnuz, value_cache, key_bits, key_same, attn_metadata):
        return query
