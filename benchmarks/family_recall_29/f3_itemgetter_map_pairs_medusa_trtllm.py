"""TensorRT-LLM Medusa verify reference: map(itemgetter(1), pairs) pulls buffers out of (layer, buf) pairs."""
from operator import itemgetter

import torch


class MedusaVerifyReference:
    def __init__(self, manager, dtype=torch.bfloat16):
        self.manager = manager
        self.dtype = dtype

    def _pairs(self):
        return [(i, self.manager.get_buffers(i)) for i in range(self.manager.num_local_layers)]

    def forward(self, q, metadata, spec_metadata):
        pairs = self._pairs()
        dense = [b.to(self.dtype) for b in map(itemgetter(1), pairs)]  # positive: f3 CL001 every whole layer buffer taken out of the pairs
        ids = metadata.kv_cache_block_offsets[0]
        used = [b[ids].to(self.dtype) for b in map(itemgetter(1), pairs)]  # negative: blocks gathered first
        paths = spec_metadata.medusa_paths.to(torch.int32)  # negative: tree paths
        tree_mask = spec_metadata.medusa_tree_mask.to(q.dtype)  # negative: mask
        return self._tree_attend(q, dense, used, paths, tree_mask)
