"""Reshapes driven by the pool's own shape keep it whole."""

import torch


class ShapeAttention:
    def __init__(self, layer_idx, tokens_per_block, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.tokens_per_block = tokens_per_block
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        nb = buf.shape[0]
        a = buf.reshape(nb, -1)
        ad = a.to(self.dtype)  # positive: f5 CL001 reshape to (num_blocks, -1) keeps every block
        b = buf.view(*buf.shape[:2], -1).to(self.dtype)  # positive: f5 CL001 view(*shape[:2], -1) of the whole buffer
        c = buf.reshape(buf.shape)
        cd = c.half()  # positive: f5 CL001 reshape to its own shape
        live = attn_metadata.num_blocks_in_use
        dd = buf.reshape(nb, -1)[:live].to(self.dtype)  # negative: blocks in use only
        qd = q.reshape(q.shape[0], -1).to(self.dtype)  # negative: batch query
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(qd, ad, b, cd, dd, out)
        return out


class ShapeLookalikeAttention(ShapeAttention):
    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        as_bytes = buf.reshape(buf.shape[0], -1).view(torch.uint8)  # negative: reshape then reinterpret
        first = buf.reshape(-1, self.tokens_per_block, buf.shape[-1])[0].to(self.dtype)  # negative: a single block
        return torch.ops.trtllm.attn(q, as_bytes, first)
