"""f5: K/V halves taken with torch.hsplit, split(1, dim=1) and torch.moveaxis of a TRT-LLM layer buffer."""
import torch


class HalvesAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.kv_cache_manager = kv_cache_manager

    def forward(self, q, k, v, metadata):
        buf = self.kv_cache_manager.get_buffers(self.layer_idx)  # [blocks, 2, tpb, heads, dim]
        k_half = torch.hsplit(buf, 2)[0].to(q.dtype)  # positive: f5 CL001 hsplit keeps every block's K
        v_half = buf.split(1, dim=1)[1].squeeze(1).float()  # positive: f5 CL001 V of every block
        k_major = torch.moveaxis(buf, 1, 0)[0].half()  # positive: f5 CL001 moveaxis then K plane
        blocks = buf.index_select(0, metadata.block_ids).to(q.dtype)  # negative: the step's blocks
        heads = buf.shape[3]  # negative: shape
        return k_half, v_half, k_major, blocks, heads
