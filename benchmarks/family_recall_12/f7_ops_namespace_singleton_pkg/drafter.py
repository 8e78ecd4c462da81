import torch

from . import kernels


class NamespaceDrafter:
    def __init__(self, draft_start_layer, dtype):
        self.start = draft_start_layer
        self.dtype = dtype

    def forward(self, hidden, attn_metadata, draft_step):
        mgr = attn_metadata.kv_cache_manager
        draft_buf = mgr.get_buffers(self.start + draft_step)
        d = kernels.ops.upcast(draft_buf, self.dtype)
        h = hidden.to(self.dtype)  # negative: hidden states
        return d, h
