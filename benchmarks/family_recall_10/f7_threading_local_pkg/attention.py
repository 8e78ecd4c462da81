import torch

from .local import manager


class ThreadLocalAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        mgr = manager()
        if mgr is None:
            return q
        buf = mgr.get_buffers(self.layer_idx)
        dense = buf.to(q.dtype)  # positive: f7 CL001 manager from a threading.local set by executor.py
        ids = mgr.get_batch_cache_indices(attn_metadata.request_ids)
        bt = torch.tensor(ids).to(torch.int32)  # negative: block indices
        return dense, bt
