import torch


class NarrowFormsImpl:
    """Reference path of a paged impl; kv_cache is [2, num_blocks, block_size, heads, dim]."""

    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        num_blocks = kv_cache.shape[1]
        k_plane = torch.narrow(kv_cache, 0, 0, 1).squeeze(0)
        k_all = k_plane[0 : len(k_plane) : 1].to(query.dtype)  # positive: f5 CL001 K plane sliced over its full extent with step 1
        v_all = kv_cache.select(0, 1).narrow(0, 0, num_blocks).to(query.dtype)  # positive: f5 CL001 V plane narrowed to all of its blocks
        used = attn_metadata.num_blocks_in_use
        v_used = kv_cache[1].narrow(0, 0, used).to(query.dtype)  # negative: blocks in use only
        k_tail = k_plane[-used:].to(query.dtype)  # negative: the last used blocks only
        return k_all, v_all, v_used, k_tail
