import torch


class FlashAttentionImpl:
    def __init__(self, kv_cache_dtype="fp8"):
        self.kv_cache_dtype = kv_cache_dtype

    def _cache_for_kernel(self, kv_cache, query):
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = self._cache_for_kernel(kv_cache, query)
        return cache


class LoRATorchFallbackImpl(FlashAttentionImpl):
    """Used when punica kernels are missing: attention runs in torch with LoRA deltas applied."""

    def __init__(self, kv_cache_dtype, lora_a, lora_b):
        super().__init__(kv_cache_dtype)
        self.lora_a = lora_a.to(torch.bfloat16)  # negative: adapter weights in __init__
        self.lora_b = lora_b

    def _cache_for_kernel(self, kv_cache, query):
        key_cache, value_cache = kv_cache.unbind(0)
        return torch.stack([key_cache.to(query.dtype), value_cache.to(query.dtype)])  # positive: f2 CL001 both whole planes widened

    def apply_lora(self, x):
        return x + (x @ self.lora_a.to(x.dtype)) @ self.lora_b.to(x.dtype)  # negative: LoRA weights
