"""Elementwise ops over the whole buffer around a conversion: masked_fill, clamp, torch.where."""
import torch


class ElementwiseAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = buf.masked_fill(buf != buf, 0).to(q.dtype)  # positive: f5 CL001 NaN-scrubbed whole buffer converted
        b = buf.clamp(-448.0, 448.0).half()  # positive: f5 CL001 clamped whole buffer converted
        valid = metadata.block_valid_mask
        c = torch.where(valid[:, None, None, None, None], buf.float(), 0.0)  # positive: f5 CL001 whole buffer converted inside torch.where
        d = torch.where(metadata.query_mask[:, None], q.float(), 0.0)  # negative: batch query
        e = buf.clamp(-448.0, 448.0)  # negative: no conversion
        return a, b, c, d, e
