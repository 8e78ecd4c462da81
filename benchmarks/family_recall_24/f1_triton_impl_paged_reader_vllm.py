# vLLM v1 Triton attention impl on a GPU without FP8 support: forward wraps kv_cache in a
# reader and pulls both planes at the compute dtype.
import torch


class _PagedReader:
    def __init__(self, kv_cache):
        self.kv_cache = kv_cache

    def planes(self, dtype):
        key_cache, value_cache = self.kv_cache.unbind(0)
        return key_cache.to(dtype), value_cache.to(dtype)  # positive: f1 CL001 both whole planes, one line

    def raw(self):
        return self.kv_cache.unbind(0)


class TritonAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata is None:
            return output.fill_(0)
        reader = _PagedReader(kv_cache)
        if self.kv_cache_dtype.startswith("fp8") and not self._fp8_kernel:
            key_cache, value_cache = reader.planes(query.dtype)
        else:
            key_cache, value_cache = reader.raw()
        q = query.to(torch.float32) if self.fp32_softmax else query  # negative: query
        return self._unified_attention(q, key_cache, value_cache, attn_metadata, output)
