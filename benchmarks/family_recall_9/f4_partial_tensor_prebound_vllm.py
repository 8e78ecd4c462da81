"""functools.partial(torch.Tensor.to, <tensor>) with the tensor pre-bound; the dtype comes later.

The conversion happens where the partial is called, so that call is the labelled line.
"""
import functools

import torch


class PreboundImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        up = functools.partial(torch.Tensor.to, kv_cache)
        dense = up(query.dtype)  # positive: f4 CL001 partial pre-bound to the whole kv_cache, called with a dtype
        k_up = functools.partial(torch.Tensor.to, kv_cache[0], non_blocking=True)
        k_dense = k_up(torch.float16)  # positive: f4 CL001 partial pre-bound to the K plane
        slots = functools.partial(torch.Tensor.to, attn_metadata.slot_mapping)(torch.int64)  # negative: slot mapping
        mv = functools.partial(torch.Tensor.to, kv_cache)(query.device)  # negative: device-only move
        return dense, k_dense, slots, mv
