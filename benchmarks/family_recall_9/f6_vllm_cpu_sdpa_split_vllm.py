"""vLLM CPU (torch SDPA) style: PagedAttention.split_kv_cache, then upcast of the FP8 planes."""
import torch
from vllm.attention.ops.paged_attn import PagedAttention


class CpuSdpaImpl:
    def __init__(self, num_kv_heads, head_size, kv_cache_dtype="fp8"):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = PagedAttention.split_kv_cache(kv_cache, self.num_kv_heads, self.head_size)
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.float()  # positive: f6 CL001 whole key cache from split_kv_cache upcast
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 whole value cache from split_kv_cache upcast
        tables = attn_metadata.block_tables.to(torch.int32)  # negative: block tables
        k_scale = layer._k_scale.to(torch.float32)  # negative: scale
        keys = key.to(query.dtype)  # negative: the step's keys
        return key_cache, value_cache, tables, k_scale, keys
