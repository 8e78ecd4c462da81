"""A list of stage functions applied with functools.reduce(lambda acc, f: f(acc), stages, buf)."""
import functools

import torch


class PipelineAttention:
    def __init__(self, layer_idx, compute_dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.stages = [
            lambda t: t.flatten(2, 3),
            lambda t: t.to(compute_dtype),  # positive: f4 CL001 stage applied only to whole manager buffers
        ]
        self.id_stages = [torch.as_tensor, lambda t: t.to(torch.int32)]  # negative: stage applied to block ids

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = functools.reduce(lambda acc, f: f(acc), self.stages, buf)
        blk = metadata.kv_cache_manager.get_block_ids_per_seq(metadata.request_ids[0])
        blk_t = functools.reduce(lambda acc, f: f(acc), self.id_stages, blk)
        return dense, blk_t
