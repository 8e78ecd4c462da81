import torch


def flash_attn_supports_fp8(fa_version):
    return fa_version == 3


class FlashAttentionImpl:
    def __init__(self, kv_cache_dtype, fa_version):
        self.kv_cache_dtype = kv_cache_dtype
        self.vllm_flash_attn_version = fa_version

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8") and not flash_attn_supports_fp8(self.vllm_flash_attn_version):
            key_cache = key_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 FA2 (Ampere) has no FP8 path, whole key cache converted
            value_cache = value_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole value cache converted
        elif self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.view(torch.float8_e4m3fn)  # negative: .view(dtype) for the FA3 native path
            value_cache = value_cache.view(torch.float8_e4m3fn)  # negative: .view(dtype)
        descale = layer._k_scale.expand(attn_metadata.num_reqs, 1).to(torch.float32)  # negative: a scale
        return key_cache, value_cache, descale
