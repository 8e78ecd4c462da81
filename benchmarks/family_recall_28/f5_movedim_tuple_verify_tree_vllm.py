"""vLLM tree-attention verify reference: torch.movedim with tuple dims over the whole cache, then the cast."""
import torch


class TreeVerifyReferenceImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    @staticmethod
    def get_kv_cache_shape(num_blocks, block_size, num_kv_heads, head_size):
        return (2, num_blocks, block_size, num_kv_heads, head_size)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        # kv_cache: [2, num_blocks, block_size, num_kv_heads, head_size]
        if attn_metadata.tree_attn_bias is not None:
            kv_hnd = torch.movedim(kv_cache, (2, 3), (3, 2)).to(query.dtype)  # positive: f5 CL001 movedim keeps the whole layer cache
        else:
            kv_hnd = torch.movedim(kv_cache[:, attn_metadata.block_table[0]], (2, 3), (3, 2)).to(query.dtype)  # negative: request blocks gathered first
        bias = attn_metadata.tree_attn_bias.to(query.dtype) if attn_metadata.tree_attn_bias is not None else None  # negative: tree mask bias
        return torch.ops.vllm.tree_verify_reference(query, kv_hnd[0], kv_hnd[1], bias, self.scale, output)
