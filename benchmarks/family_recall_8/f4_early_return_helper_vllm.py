import torch


def _maybe_dense(kv_cache, want):
    if kv_cache.dtype == want:
        return kv_cache
    if kv_cache.numel() == 0:
        return kv_cache
    return kv_cache.to(want)  # positive: f4 CL001 helper with early returns, only called with kv_cache


def _rows(kv_cache, slots, want):
    if slots.numel() == 0:
        return None
    return kv_cache[slots].to(want)  # negative: gathered slots


class EarlyReturnImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata is None:
            return output
        dense = _maybe_dense(kv_cache, query.dtype)
        part = _rows(kv_cache, attn_metadata.slot_mapping, query.dtype)
        return dense, part
