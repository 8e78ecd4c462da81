import torch


class PerHeadScaleTorchImpl:
    def __init__(self, num_kv_heads):
        self.k_head_scale = torch.ones(num_kv_heads)
        self.v_head_scale = torch.ones(num_kv_heads)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        k_s = self.k_head_scale.float()[None, None, :, None]  # negative: per-head scales
        k = key_cache.to(torch.float32) * k_s  # positive: f5 CL001 whole key plane dequantized with per-head scales
        v = torch.mul(value_cache.float(), self.v_head_scale[None, None, :, None])  # positive: f5 CL001 whole value plane
        k_blk = key_cache[attn_metadata.block_table[0]].float() * k_s  # negative: one sequence's blocks
        return k, v, k_blk
