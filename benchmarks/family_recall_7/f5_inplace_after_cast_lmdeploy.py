"""f5: a conversion followed by in-place ops (clamp_, mul_, nan_to_num_); in-place ops alone are not conversions."""
import torch


class InplaceImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k32 = k_cache.float().clamp_(-448.0, 448.0)  # positive: f5 CL001 whole k_cache upcast then clamped
        v16 = v_cache.half().mul_(2.0)  # positive: f5 CL001 whole v_cache converted then scaled
        kb = k_cache.to(torch.bfloat16).nan_to_num_()  # positive: f5 CL001 whole k_cache converted then cleaned
        v_cache.mul_(1.0)  # negative: in place, same dtype
        k_cache.clamp_(-448.0, 448.0)  # negative: in place, same dtype
        q = query.float().mul_(0.125)  # negative: the batch's query
        return k32, v16, kb, q
