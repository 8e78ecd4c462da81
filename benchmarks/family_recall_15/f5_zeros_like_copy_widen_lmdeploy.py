import torch


class MacaPagedAttentionImpl:
    def __init__(self, num_heads, head_size, dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.dtype = dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k16 = torch.zeros_like(k_cache, dtype=torch.float16).copy_(k_cache)  # positive: f5 CL001 fresh fp16 tensor filled from the whole cache
        v16 = torch.empty_like(v_cache, dtype=torch.float16)  # negative: allocation only
        v16.index_copy_(0, attn_metadata.block_offsets[0], v_cache[attn_metadata.block_offsets[0]].to(torch.float16))  # negative: gathered blocks
        k_same = torch.empty_like(k_cache).copy_(k_cache)  # negative: same dtype
        k32 = k_cache.new_empty(k_cache.shape, dtype=torch.float32).copy_(k_cache)  # positive: f5 CL001 new_empty of another dtype filled from the whole cache
        return self._paged(query, k16, v16, k_same)

    def _paged(self, q, *xs):
        return q
