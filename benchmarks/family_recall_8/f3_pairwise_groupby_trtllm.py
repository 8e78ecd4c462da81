import itertools

import torch


class PairwiseAttention:
    def __init__(self, kv_cache_manager, layer_ids, groups):
        self.mgr = kv_cache_manager
        self.layer_ids = layer_ids
        self.groups = groups

    def forward(self, q, k, v, metadata):
        bufs = [self.mgr.get_buffers(i) for i in self.layer_ids]
        diffs = []
        for a, b in itertools.pairwise(bufs):
            diffs.append(b.float())  # positive: f3 CL001 itertools.pairwise over layer buffers
        keyed = sorted(zip(self.groups, bufs), key=lambda gb: gb[0])
        grouped = {}
        for g, members in itertools.groupby(keyed, key=lambda gb: gb[0]):
            grouped[g] = [m[1].to(torch.bfloat16) for m in members]  # positive: f3 CL001 groupby members are whole layers
        blocks = self.mgr.get_block_ids_per_seq(metadata.request_ids)
        bt = torch.as_tensor(blocks, dtype=torch.int32)  # negative: block ids
        return diffs, grouped, bt
