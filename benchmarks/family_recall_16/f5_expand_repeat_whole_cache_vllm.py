"""Per-step attention path (expand repeat whole cache vllm).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class GQAExpandImpl:
    def __init__(self, num_heads, num_kv_heads):
        self.rep = num_heads // num_kv_heads

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k = key_cache.repeat_interleave(self.rep, dim=-2).to(query.dtype)  # positive: f5 CL001 head repeat keeps every block
        v = value_cache.unsqueeze(-2).expand(-1, -1, -1, self.rep, -1).to(query.dtype)  # positive: f5 CL001 expand of the whole cache then cast
        rows = attn_metadata.block_table[:, : attn_metadata.max_blocks]
        k_rows = key_cache[rows].repeat(1, 1, 1, self.rep, 1).to(query.dtype)  # negative: gathered blocks repeated
        key16 = key.repeat(1, self.rep, 1).to(query.dtype)  # negative: new keys of the batch
        return k, v, k_rows, key16
