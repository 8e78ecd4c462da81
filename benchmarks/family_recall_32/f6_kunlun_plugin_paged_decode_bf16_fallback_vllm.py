"""vLLM Kunlun (Baidu XPU) platform plugin: paged decode without an int8 kernel widens both planes."""
import torch


class KunlunPagedAttentionImpl:
    def __init__(self, model_dtype=torch.bfloat16, kv_cache_dtype="int8"):
        self.model_dtype = model_dtype
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        if self.kv_cache_dtype == "int8":
            key_cache = key_cache.to(self.model_dtype) * layer._k_scale  # positive: f6 CL001 whole key plane widened then scaled
            value_cache = value_cache.to(self.model_dtype) * layer._v_scale  # positive: f6 CL001 whole value plane widened then scaled
        ks = layer._k_scale.to(self.model_dtype)  # negative: scale
        new_k = key.to(self.model_dtype)  # negative: new tokens
        return self._xtorch_paged(query, new_k, key_cache, value_cache, ks, attn_metadata)

    def _xtorch_paged(self, *a):
        return a
