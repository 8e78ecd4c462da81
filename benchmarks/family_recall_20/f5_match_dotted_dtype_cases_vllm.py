import torch


class ROCmPagedFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        match kv_cache.dtype:
            case torch.float8_e4m3fnuz | torch.float8_e4m3fn:
                dense = kv_cache.to(query.dtype)  # positive: f5 CL001 FP8 case of a match on dotted dtype patterns, whole cache converted
            case torch.uint8:
                dense = kv_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f5 CL001 uint8 storage reinterpreted, then the whole cache converted
            case torch.bfloat16 | torch.float16:
                dense = kv_cache.to(kv_cache.dtype)  # negative: same-dtype .to of an auto (16-bit) cache
            case _:
                dense = kv_cache.view(query.dtype)  # negative: .view(dtype) reinterpret
        block = kv_cache[:, attn_metadata.block_table[0]].to(query.dtype)  # negative: blocks selected before the cast
        return dense, block
