import torch


class TritonAttentionImplLite:
    def __init__(self, num_heads, head_size, kv_cache_dtype, supports_fp8):
        self.kv_cache_dtype = kv_cache_dtype
        self.supports_fp8 = supports_fp8
        self.fp8_dtype = torch.float8_e4m3fnuz

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(1)
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.view(self.fp8_dtype)  # negative: reinterpret
            value_cache = value_cache.view(self.fp8_dtype)  # negative: reinterpret
            if not self.supports_fp8:
                key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 whole K plane upcast on GPUs without FP8 kernels
                value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 whole V plane upcast
        descale = layer._q_scale.expand(attn_metadata.num_actual_tokens).float()  # negative: scale
        seq = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        return key_cache, value_cache, descale, seq
