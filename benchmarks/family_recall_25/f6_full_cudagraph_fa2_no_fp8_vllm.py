import torch


class FlashAttentionImplFA2:
    """FA2 has no FP8 KV read; the full CUDA graph path still replays over the whole cache."""

    def __init__(self, num_heads, head_size, scale, kv_cache_dtype, dtype=torch.bfloat16):
        self.kv_cache_dtype = kv_cache_dtype
        self.dtype = dtype
        self.vllm_flash_attn_version = 2

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata is None:
            return output.fill_(0)
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8") and self.vllm_flash_attn_version == 2:
            key_cache = key_cache.to(self.dtype)  # positive: f6 CL001 FA2 without FP8: whole key plane widened per step
            value_cache = value_cache.to(self.dtype)  # positive: f6 CL001 FA2 without FP8: whole value plane widened per step
        elif self.kv_cache_dtype.startswith("fp8"):
            query = query.to(key_cache.view(torch.float8_e4m3fn).dtype)  # negative: FA3 path quantizes the query instead
        descale = layer._k_scale.expand(attn_metadata.num_reqs, 1).to(torch.float32)  # negative: scales
        return key_cache, value_cache, query, descale
