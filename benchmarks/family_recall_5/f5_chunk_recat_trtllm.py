"""torch.chunk of the layer pool, recombined with torch.cat, then cast."""

import torch


class ChunkAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata):
        pool = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        lo, hi = torch.chunk(pool, 2, dim=-1)
        joined = torch.cat([hi, lo], dim=-1)
        jd = joined.to(self.dtype)  # positive: f5 CL001 chunks of the whole pool concatenated back, then cast
        halves = pool.chunk(2, dim=1)
        kd = halves[0].to(self.dtype)  # positive: f5 CL001 K half of every block (chunk along the kv axis)
        firsts = torch.cat([c[:1] for c in torch.chunk(pool, 4, dim=0)])
        fd = firsts.to(self.dtype)  # negative: one block from each of four chunks
        qk = torch.cat([q, k], dim=-1).to(self.dtype)  # negative: batch q and k
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(qk, jd, kd, fd, attn_metadata.kv_cache_block_offsets, out)
        return out


class ChunkGatherAttention(ChunkAttention):
    def forward(self, q, k, v, attn_metadata):
        pool = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        lo, hi = pool.chunk(2, dim=-1)
        blocks = attn_metadata.block_ids_flat
        g = torch.cat([lo, hi], dim=-1).to(self.dtype)[blocks]  # positive: f5 CL003 recombined whole pool cast, then block gather
        h = torch.cat([lo[blocks], hi[blocks]], dim=-1).to(self.dtype)  # negative: gathered before the cat and the cast
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(q, g, h, attn_metadata.kv_cache_block_offsets, out)
        return out
