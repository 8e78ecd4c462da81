import itertools

import torch


class PPStageLayerTable:
    """Layer buffers for several PP stages kept in one flat list, split by cumulative offsets."""

    def __init__(self, kv_cache_manager, layers_per_stage):
        self.flat = [kv_cache_manager.get_buffers(i) for i in range(sum(layers_per_stage))]
        self.offsets = [0, *itertools.accumulate(layers_per_stage)]
        self.dtype = torch.bfloat16

    def stage(self, s):
        return self.flat[self.offsets[s]:self.offsets[s + 1]]

    def _forward_step(self, scheduled_requests, stage_idx, block_ids):
        wide = []
        for buf in self.stage(stage_idx):
            wide.append(buf.to(self.dtype))  # positive: f3 CL001 whole per-layer buffers from a list slice
        first_blocks = [buf[: len(block_ids)].to(self.dtype) for buf in self.stage(stage_idx)]  # negative: block prefix
        picked = [buf[block_ids].float() for buf in self.stage(stage_idx)]  # negative: blocks selected first
        return wide, first_blocks, picked
