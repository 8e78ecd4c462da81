import torch


class MTPVerifyReference:
    """Debug reference for target verify: compares per-request attention with a dense pass."""

    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, attn_metadata, spec_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)  # [num_blocks, kv_factor, ...]
        bounds = attn_metadata.request_block_bounds  # contiguous block ranges, one per request
        parts = torch.vsplit(buf, bounds)
        dense = torch.cat(parts).to(self.dtype)  # positive: f5 CL001 vsplit pieces re-joined: every block of the layer
        outs = []
        for r in range(attn_metadata.num_seqs):
            mine = parts[r].to(self.dtype)  # negative: one request's blocks
            outs.append(self._attend(q[r], mine, spec_metadata.draft_tokens[r]))
        ref = self._attend(q, dense, spec_metadata.draft_tokens)
        drift = (torch.cat(outs) - ref).abs().max().to(torch.float32)  # negative: outputs, not cache
        return outs, drift
