import torch


class RocmPagedAttentionImpl:
    """MI250 (gfx90a): no fp8 paged kernel, so the quantized cache is read as fp16."""

    def __init__(self, num_heads, head_size, scale, quant_policy):
        self.quant_policy = quant_policy
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.quant_policy == 8 and attn_metadata.is_decoding:
            k = k_cache.clone(memory_format=torch.contiguous_format).half()  # positive: f5 CL001 whole key cache, clone keeps every block
            v = v_cache.clone(memory_format=torch.contiguous_format).half()  # positive: f5 CL001 whole value cache
        else:
            flat = attn_metadata.block_offsets.flatten()
            k = k_cache.index_select(0, flat).half()  # negative: blocks of the batch
            v = v_cache.index_select(0, flat).half()  # negative: blocks of the batch
        q = query.half()  # negative: the query
        return self._paged_decode(q, k, v, attn_metadata.block_offsets, attn_metadata.kv_seqlens, self.scale)
