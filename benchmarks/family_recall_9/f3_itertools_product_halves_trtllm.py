"""itertools.product over (layer, half) pairs indexing each manager buffer's K/V half."""
import itertools

import torch


class ProductAttention:
    def __init__(self, kv_cache_manager, layer_ids):
        self.kv_cache_manager = kv_cache_manager
        self.layer_ids = layer_ids
        self.halves = {}

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        for idx, half in itertools.product(self.layer_ids, (0, 1)):
            self.halves[idx, half] = mgr.get_buffers(idx)[:, half].to(q.dtype)  # positive: f3 CL001 K or V half of every block from a product loop
        grid = list(itertools.product(self.layer_ids[:1], range(2)))
        i0, h0 = grid[-1]
        last = mgr.get_buffers(i0).select(1, h0)
        last_f = last.float()  # positive: f3 CL001 half taken from the last product pair
        for idx, seq in itertools.product(self.layer_ids, metadata.request_ids):
            blk = mgr.get_block_ids_per_seq(seq)
            blk_t = torch.as_tensor(blk, dtype=torch.int32)  # negative: block ids per sequence
        return last_f, blk_t
