import torch


class RocmTritonAttentionImpl:
    """lmdeploy ROCm backend: gfx90a has no FP8 tensor cores for the paged decode kernel."""

    def __init__(self, num_heads, head_size, quant_policy=0, kv_cache_dtype=torch.float8_e4m3fnuz):
        self.num_heads = num_heads
        self.head_size = head_size
        self.quant_policy = quant_policy
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if attn_metadata.is_decoding and self.kv_cache_dtype.itemsize == 1:
            k_cache = k_cache.to(query.dtype)  # positive: f6 CL001 whole fp8 key cache for the fp16 decode kernel
            v_cache = v_cache.to(query.dtype)  # positive: f6 CL001 whole fp8 value cache
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        fill = attn_metadata.fill_block_offsets
        fill_k = k_cache[fill].to(query.dtype)  # negative: blocks first (prefill fill path)
        return self.paged_attention_fwd(query, k_cache, v_cache, attn_metadata.block_offsets), fill_k
