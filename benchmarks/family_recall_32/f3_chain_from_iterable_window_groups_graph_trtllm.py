"""TRT-LLM VSWA decode graph: per-window-size layer groups flattened with itertools.chain.from_iterable."""
import itertools

import torch


class VswaDecodeGraphBody:
    def __init__(self, mgr, window_groups, dtype=torch.float16):
        # window_groups: {window_size: [layer_idx, ...]}
        self.mgr = mgr
        self.groups = window_groups
        self.dtype = dtype
        self.bufs = {i: mgr.get_buffers(i) for i in itertools.chain.from_iterable(window_groups.values())}

    def forward(self, metadata):
        # captured once by torch.cuda.graph and replayed every decode step
        layers = itertools.chain.from_iterable(self.groups[w] for w in sorted(self.groups))
        dense = [self.bufs[i][:, 0].to(self.dtype) for i in layers]  # positive: f3 CL001 key plane of every layer, all blocks
        tail = metadata.last_block_ids
        last = [self.bufs[i][tail, 1].to(self.dtype) for i in self.groups[min(self.groups)]]  # negative: last-block gather
        return dense, last
