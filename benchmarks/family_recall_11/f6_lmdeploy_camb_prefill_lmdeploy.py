import torch


class CambAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_dtype = kv_dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        kv_start = attn_metadata.kv_start_indices.to(torch.int32)  # negative: slot indices
        block_offsets = attn_metadata.block_offsets.to(torch.int32)  # negative: block table
        if attn_metadata.is_decoding:
            return self._paged_decode(query, k_cache, v_cache, block_offsets)
        if self.kv_dtype == torch.int8:
            k_cache = k_cache.float()  # positive: f6 CL001 whole int8 K cache converted for the prefill fallback
            v_cache = v_cache.float()  # positive: f6 CL001 whole int8 V cache
        return query, key.float(), k_cache, v_cache, kv_start  # negative: the step's keys

    def _paged_decode(self, query, k_cache, v_cache, block_offsets):
        k_blocks = k_cache[block_offsets.flatten()].float()  # negative: the batch's blocks gathered first
        return query, k_blocks
