"""Blind corpus case (family_recall_8).

One attention-layer class; see the trailing comments for labels.
"""
import torch


class AllLayersSnapshot:
    def __init__(self, pool):
        self.pool = pool

    def forward(self, forward_batch, dtype=torch.bfloat16):
        out = {}
        for lid, (kb, vb) in enumerate(zip(self.pool.k_buffer, self.pool.v_buffer, strict=True), start=self.pool.start_layer):
            out[lid] = (kb.to(dtype), vb)  # positive: f3 CL001 zip(strict=True) in enumerate(start=) over per-layer lists
        tail = [vb.to(dtype) for _, vb in zip(range(2), reversed(self.pool.v_buffer))]  # positive: f3 CL001 reversed list of whole V layers
        locs = [loc.to(torch.int64) for loc in (forward_batch.out_cache_loc,)]  # negative: slot indices
        return out, tail, locs
