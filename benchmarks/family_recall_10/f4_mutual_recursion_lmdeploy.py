"""Two mutually recursive helpers walk the nested gpu_cache and convert the leaves."""
import torch


def _walk_items(items, dtype):
    return [_walk_one(x, dtype) for x in items]


def _walk_one(x, dtype):
    if isinstance(x, (list, tuple)):
        return _walk_items(x, dtype)
    return x.to(dtype)  # positive: f4 CL001 leaves of gpu_cache reached by mutual recursion


class RecursiveEngineAttention:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, query, key, value, attn_metadata):
        dense = _walk_items(self.cache_engine.gpu_cache, query.dtype)
        q_lens = attn_metadata.q_seqlens.to(torch.int64)  # negative: query lengths
        starts = attn_metadata.q_start_loc.to(torch.int64)  # negative: start locations
        return dense, q_lens, starts
