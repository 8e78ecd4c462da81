"""Whole-keeping indexing spellings (None, ..., ::1) versus windows of the step."""

import torch


class SliceImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        key_cache, value_cache = kv_cache.unbind(0)
        k1 = key_cache[None].to(query.dtype)  # positive: f5 CL001 [None] adds a leading axis, keeps every block
        k2 = key_cache[...].half()  # positive: f5 CL001 [...] is the whole tensor
        v1 = value_cache[::1, :].to(query.dtype)  # positive: f5 CL001 step-1 full slice keeps every block
        v2 = value_cache[:, ..., :].bfloat16()  # positive: f5 CL001 full slices around an ellipsis
        n = attn_metadata.num_actual_tokens
        q = query[:n].to(torch.float32)  # negative: batch query window
        first = key_cache[: attn_metadata.max_num_blocks].to(query.dtype)  # negative: leading blocks only
        every2 = value_cache[::2].to(query.dtype)  # note: strided half of the blocks, not labelled
        torch.ops._C.ref_attn(output, q, k1, k2, v1, v2, first, every2)
        return output


class WindowImpl(SliceImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        key_cache, value_cache = kv_cache.unbind(0)
        used = attn_metadata.num_blocks_used
        kw = key_cache[:used, ...].to(query.dtype)  # negative: blocks in use only
        vw = value_cache[attn_metadata.block_table[0]].to(query.dtype)  # negative: one sequence's blocks
        kn = key_cache[None, :used].half()  # negative: [None] plus a window
        torch.ops._C.ref_attn(output, query, kw, vw, kn)
        return output
