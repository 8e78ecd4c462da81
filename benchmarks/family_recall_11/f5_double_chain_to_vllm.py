import torch


class ChainedCastImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        if self.kv_cache_dtype == "fp8_e5m2":
            key_cache = key_cache.float().half()  # positive: f5 CL001 whole K plane, two conversions in one chain
            value_cache = value_cache.to(device=query.device, dtype=query.dtype, copy=False)  # positive: f5 CL001 whole V plane with device and dtype keywords
        elif self.kv_cache_dtype == "auto":
            key_cache = key_cache.to(device=query.device, copy=False)  # negative: device only
            value_cache = value_cache.to(value_cache.dtype)  # negative: same dtype
        k_scale = layer._k_scale.float()  # negative: scale
        slots = attn_metadata.slot_mapping.to(torch.int64)  # negative: slot mapping
        return key_cache, value_cache, k_scale, slots
