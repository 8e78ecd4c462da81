import torch


class GQAExpandFallback:
    def __init__(self, layer_idx, num_heads, num_kv_heads):
        self.layer_idx = layer_idx
        self.group = num_heads // num_kv_heads

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        keys = buf[:, 0]
        wide = keys.unsqueeze(-2).expand(*keys.shape[:-1], self.group, keys.shape[-1]).to(q.dtype)  # positive: f5 CL001 key plane of every block, broadcast then cast
        flat = keys.flatten(0, 1).to(q.dtype)  # positive: f5 CL001 flatten keeps every slot
        blk = attn_metadata.kv_cache_block_offsets[0, :, 0]
        part = keys[blk].unsqueeze(-2).expand(-1, -1, -1, self.group, -1).to(q.dtype)  # negative: gathered blocks
        one = keys[0].to(q.dtype)  # negative: a single block
        return q, wide, flat, part, one
