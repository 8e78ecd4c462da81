"""map(torch.Tensor.to, pools, itertools.repeat(dtype)) with two iterables, and map(Tensor.half, ...)."""
import itertools

import torch


class MapUnboundAttention:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids

    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        pools = [mgr.get_buffers(i) for i in self.layer_ids]
        dense = list(map(torch.Tensor.to, pools, itertools.repeat(q.dtype)))  # positive: f4 CL001 unbound to mapped over whole pools
        halves = list(map(torch.Tensor.half, pools[:1]))  # positive: f4 CL001 unbound half mapped over the first pool
        fresh = list(map(torch.Tensor.to, (k, v), itertools.repeat(pools[0].dtype)))  # negative: this step's k and v
        lens = list(map(torch.Tensor.long, [attn_metadata.seq_lens]))  # negative: lengths
        return dense, halves, fresh, lens
