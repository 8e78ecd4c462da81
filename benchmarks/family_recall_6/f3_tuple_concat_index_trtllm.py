"""Tuples of per-layer buffers concatenated and indexed; a NamedTuple layout index."""
from typing import NamedTuple

import torch


class Layout(NamedTuple):
    first: int
    count: int


class DraftTargetKV:
    def __init__(self, target_mgr, draft_mgr, n_target, n_draft):
        target = tuple(target_mgr.get_buffers(i) for i in range(n_target))
        draft = tuple(draft_mgr.get_buffers(i) for i in range(n_draft))
        self.all_layers = target + draft
        self.draft_layout = Layout(first=n_target, count=n_draft)
        self.seq_slots = (torch.zeros(8, dtype=torch.int32),) * 2

    def forward(self, metadata, dtype=torch.bfloat16):
        d0 = self.all_layers[self.draft_layout.first]
        dd = d0.to(dtype)  # positive: f3 CL001 first draft layer's whole buffer from the concatenated tuple
        f, c = self.draft_layout
        tail = self.all_layers[f : f + c]
        conv = [t.float() for t in tail]  # positive: f3 CL001 each draft layer buffer, whole
        slots = self.seq_slots[0].to(torch.int64)  # negative: sequence slots
        blk = self.all_layers[0][metadata.block_ids].to(dtype)  # negative: gather-then-cast
        raw = self.all_layers[-1].view(torch.uint8)  # negative: reinterpret
        return dd, conv, slots, blk
