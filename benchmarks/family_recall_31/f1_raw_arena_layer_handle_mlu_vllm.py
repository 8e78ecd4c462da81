# vLLM Cambricon MLU platform plugin: the worker allocates one int8 arena per layer; a handle object built
# from the raw arena exposes the typed cache and a dense copy for the MLU decode fallback.
import torch


class _MluLayerHandle:
    def __init__(self, raw: torch.Tensor, shape, cache_dtype: torch.dtype):
        self.raw = raw
        self.shape = shape
        self.cache_dtype = cache_dtype

    @classmethod
    def from_raw(cls, raw, spec):
        return cls(raw, spec.shape, spec.dtype)

    def typed(self):
        return self.raw.view(self.cache_dtype).view(self.shape)  # negative: zero-copy reinterpretation

    def dense(self, dtype):
        return self.typed().to(dtype)  # positive: f1 CL001 whole layer cache (both planes) of the arena


class MLUPagedAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        handle = _MluLayerHandle.from_raw(kv_cache, layer.kv_spec)
        if attn_metadata.num_prefills == 0 and not self.supports_fp8_decode:
            kv = handle.dense(query.dtype)
        else:
            kv = handle.typed()
        key = key.to(query.dtype)  # negative: new tokens
        return self._mlu_attention(query, key, value, kv, attn_metadata, output)
