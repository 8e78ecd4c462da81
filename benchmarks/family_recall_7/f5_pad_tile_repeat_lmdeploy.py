"""f5: F.pad, repeat_interleave and torch.tile of whole caches, then converted."""
import torch
import torch.nn.functional as F


class PadTileImpl:
    def __init__(self, num_heads, num_kv_heads, head_size):
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        rep = self.num_heads // self.num_kv_heads
        k_pad = F.pad(k_cache, (0, 64)).float()  # positive: f5 CL001 padded copy of the whole k_cache
        k_rep = k_cache.repeat_interleave(rep, dim=2).half()  # positive: f5 CL001 GQA expansion of the whole cache
        v_rep = torch.tile(v_cache, (1, 1, rep, 1)).to(query.dtype)  # positive: f5 CL001 tiled whole v_cache
        q_pad = F.pad(query, (0, 64)).float()  # negative: the batch's query
        k_new = key.repeat_interleave(rep, dim=1).to(query.dtype)  # negative: the batch's keys
        return k_pad, k_rep, v_rep, q_pad, k_new
