import torch


class TritonPagedAttentionImpl:
    def __init__(self, num_heads, head_size, quant_policy=0):
        self.num_heads = num_heads
        self.head_size = head_size
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        if self.quant_policy == 0 and k_cache.dtype != query.dtype:
            k_cache = k_cache.to(query.dtype)  # positive: f6 CL001 lmdeploy-style whole k_cache upcast
            v_cache = v_cache.to(query.dtype)  # positive: f6 CL001 lmdeploy-style whole v_cache upcast
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        fill = attn_metadata.fill_seqlens.to(torch.int32)  # negative: lengths
        return k_cache, v_cache, fill
