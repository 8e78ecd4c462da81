"""lmdeploy Ascend SDPA fallback for int8 KV: an nn.Flatten(0, 1) module merges blocks and tokens before .half()."""
import torch
from torch import nn


class AscendSDPAFallbackImpl(nn.Module):
    def __init__(self, num_heads, head_size, block_size, scale, quant_policy=8):
        super().__init__()
        self.merge_blocks = nn.Flatten(0, 1)
        self.split_blocks = nn.Unflatten(0, (-1, block_size))
        self.scale = scale
        self.int8_kv = quant_policy == 8

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        if attn_metadata.is_decoding and self.int8_kv:
            k_tok = self.merge_blocks(k_cache).half()  # positive: f5 CL001 whole key cache flattened by the module
            v_tok = self.merge_blocks(v_cache).half()  # positive: f5 CL001 whole value cache
        else:
            blocks = attn_metadata.block_offsets[0]
            k_tok = self.merge_blocks(k_cache[blocks]).half()  # negative: blocks of the first sequence
            v_tok = self.merge_blocks(v_cache[blocks]).half()  # negative: blocks of the first sequence
        back = self.split_blocks(key.half())  # negative: new tokens
        return torch.nn.functional.scaled_dot_product_attention(query, k_tok, v_tok, scale=self.scale), back
