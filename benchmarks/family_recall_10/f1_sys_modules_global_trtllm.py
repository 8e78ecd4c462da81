"""The KV manager published as a module attribute through sys.modules and read via globals()."""
import sys

import torch

_KV_MANAGER = None
_SEQ_LENS = torch.zeros(16, dtype=torch.int32)


def publish(manager):
    setattr(sys.modules[__name__], "_KV_MANAGER", manager)


class ModuleGlobalAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        mgr = sys.modules[__name__]._KV_MANAGER
        buf = mgr.get_buffers(self.layer_idx)
        dense = buf.to(q.dtype)  # positive: f1 CL001 manager read back from sys.modules
        alt = globals()["_KV_MANAGER"].get_buffers(self.layer_idx).float()  # positive: f1 CL001 manager read via globals()
        lens = globals()["_SEQ_LENS"].to(torch.int64)  # negative: sequence lengths, not the pool
        blocks = mgr.get_batch_cache_indices(attn_metadata.request_ids)
        return dense, alt, lens, blocks
