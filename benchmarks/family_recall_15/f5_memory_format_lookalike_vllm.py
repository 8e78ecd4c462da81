import torch


class PagedSDPAImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k_c = key_cache.to(memory_format=torch.contiguous_format)  # negative: layout only, same dtype
        v_c = value_cache.to(query.dtype, memory_format=torch.contiguous_format)  # positive: f5 CL001 dtype and layout together
        k_w = key_cache.to(device=query.device, dtype=query.dtype, non_blocking=True)  # positive: f5 CL001 keyword dtype with device
        k_d = key_cache.to(device=query.device)  # negative: device only
        slots = attn_metadata.slot_mapping
        k_rows = key_cache.flatten(0, 1)[slots].to(query.dtype, memory_format=torch.preserve_format)  # negative: slot gather
        return self._sdpa(query, k_c, v_c, k_w, k_d, k_rows)

    def _sdpa(self, query, *xs):
        return query
