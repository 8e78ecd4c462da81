"""Two iterators over the per-layer pools made with itertools.tee; one is advanced to the layer."""
import itertools

import torch


class TeeAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        pools = (mgr.get_buffers(i) for i in range(mgr.num_local_layers))
        ahead, behind = itertools.tee(pools)
        first = next(ahead).to(q.dtype)  # positive: f3 CL001 first pool through a tee'd iterator
        mine = next(itertools.islice(behind, self.layer_idx, None))
        out = mine.to(q.dtype)  # positive: f3 CL001 this layer's pool through the other tee branch
        blocks = mgr.get_batch_cache_indices(attn_metadata.request_ids)
        bt = torch.tensor(blocks).to(torch.int32)  # negative: block indices
        return first, out, bt
