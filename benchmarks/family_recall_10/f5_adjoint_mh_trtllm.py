"""Whole manager buffers transposed with .adjoint(), torch.adjoint and .mH, then converted."""
import torch


class AdjointAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = buf.adjoint().to(q.dtype)  # positive: f5 CL001 adjoint keeps every element
        b = torch.adjoint(buf).float()  # positive: f5 CL001 functional adjoint
        c = buf.mH.half()  # positive: f5 CL001 mH of the whole buffer
        qt = q.adjoint().float()  # negative: the step's queries
        ids = attn_metadata.kv_cache_manager.get_block_ids_per_seq(attn_metadata.request_ids)
        bt = ids.to(torch.int32)  # negative: block ids
        return a, b, c, qt, bt
