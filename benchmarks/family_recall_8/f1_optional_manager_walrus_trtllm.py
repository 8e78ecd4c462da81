from typing import Optional

import torch


class GenAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx
        self.kv_cache_manager: Optional[object] = None

    def bind(self, manager):
        self.kv_cache_manager = manager

    def forward(self, q, k, v, metadata):
        if (mgr := self.kv_cache_manager) is not None:
            buf = mgr.get_buffers(self.layer_idx)
            wide = buf.to(torch.float16)  # positive: f1 CL001 manager bound after construction, walrus
        else:
            wide = None
        assert self.kv_cache_manager is not None
        again = self.kv_cache_manager.get_buffers(self.layer_idx).bfloat16()  # positive: f1 CL001 Optional attribute after assert
        ids = self.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        idt = torch.as_tensor(ids, dtype=torch.int32)  # negative: block indices
        return wide, again, idt
