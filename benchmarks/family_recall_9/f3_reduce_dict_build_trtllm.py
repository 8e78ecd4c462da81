"""A per-layer dict built with functools.reduce and `{**acc, i: ...}`."""
import functools

import torch


class ReduceAttention:
    def __init__(self, layer_ids, compute_dtype=torch.bfloat16):
        self.layer_ids = layer_ids
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        bufs = functools.reduce(lambda acc, i: {**acc, i: mgr.get_buffers(i)}, self.layer_ids, {})
        first = bufs[self.layer_ids[0]].to(self.compute_dtype)  # positive: f3 CL001 manager buffer from a reduce-built dict
        tail = functools.reduce(lambda acc, i: acc + [mgr.get_buffers(i)], self.layer_ids, [])[-1]
        tail_k = tail[:, 0].half()  # positive: f3 CL001 K half of the last buffer of a reduce-built list
        blocks = functools.reduce(lambda acc, s: acc + mgr.get_block_ids_per_seq(s), metadata.request_ids, [])
        blk = torch.tensor(blocks, dtype=torch.int32)  # negative: block ids
        return first, tail_k, blk
