"""vLLM IPEX (xpu) style impl: chunked prefill fed upcast caches when the kernel lacks FP8 KV."""
import torch


class IpexXpuImpl:
    def __init__(self, num_kv_heads, head_size, fp8_kernel=False):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size
        self.fp8_kernel = fp8_kernel

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        if not self.fp8_kernel:
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 whole K plane for the xpu kernel
            value_cache = value_cache.to(dtype=query.dtype)  # positive: f6 CL001 whole V plane for the xpu kernel
        seq_start = attn_metadata.seq_start_loc.to(torch.int32)  # negative: start offsets
        slots = attn_metadata.slot_mapping.to(query.device)  # negative: device-only, and indices
        return key_cache, value_cache, seq_start, slots
