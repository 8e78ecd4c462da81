import torch


class CambAttentionImpl:
    """Cambricon MLU: the paged kernel takes fp16/bf16 caches only."""

    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.kv_cache_dtype == "fp8":
            k_cache = k_cache.to(query.dtype)  # positive: f6 CL001 whole key cache for the MLU kernel
            v_cache = v_cache.to(query.dtype)  # positive: f6 CL001 whole value cache
        fill_k = key.to(torch.float8_e4m3fn)  # negative: new tokens, not the cache
        return k_cache, v_cache, fill_k


class CambOpsBackend:
    @staticmethod
    def update_step_context(step_context):
        step_context.kv_start = step_context.q_start_loc.to(torch.int32)  # negative: indices
        return step_context
