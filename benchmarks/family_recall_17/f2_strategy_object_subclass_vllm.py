"""vLLM ROCm: the impl holds a KV-read strategy object; the strategy chosen on MI200
(no FP8 arithmetic) is a subclass that widens the cache."""
import torch


class KVReadStrategy:
    def planes(self, kv_cache, query):
        return kv_cache[0], kv_cache[1]


class WidenKVRead(KVReadStrategy):
    def planes(self, kv_cache, query):
        key, value = super().planes(kv_cache, query)
        return key.to(query.dtype), value  # positive: f2 CL001 whole key plane widened by the subclass strategy


class RocmTritonImpl:
    def __init__(self, kv_cache_dtype, gfx_arch):
        fp8_ok = gfx_arch in ("gfx942", "gfx950")
        self.read = WidenKVRead() if kv_cache_dtype.startswith("fp8") and not fp8_ok else KVReadStrategy()

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache, v_cache = self.read.planes(kv_cache, query)
        probe = kv_cache[0, attn_metadata.block_table[0]].to(query.dtype)  # negative: one request's blocks
        return self._unified_attention(query, k_cache, v_cache, probe, output)

    def _unified_attention(self, query, k_cache, v_cache, probe, output):
        return output
