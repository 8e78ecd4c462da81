"""f5: conversions to FP8, to the default dtype and to a promoted dtype; *_like allocations are not conversions."""
import torch


class DtypeFormsImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k8 = k_cache.to(torch.float8_e4m3fn)  # positive: f5 CL001 whole k_cache requantized every step
        v_def = v_cache.to(torch.get_default_dtype())  # positive: f5 CL001 whole v_cache to the default dtype
        k_pro = k_cache.to(torch.promote_types(query.dtype, torch.float32))  # positive: f5 CL001 promoted dtype
        empty = torch.empty_like(k_cache, dtype=torch.bfloat16)  # negative: allocation, no data converted
        zeros = v_cache.new_zeros(v_cache.shape, dtype=torch.bfloat16)  # negative: allocation
        full = torch.full_like(k_cache, 0, dtype=torch.float32)  # negative: allocation
        q8 = query.to(torch.float8_e4m3fn)  # negative: batch query
        return k8, v_def, k_pro, empty, zeros, full, q8
