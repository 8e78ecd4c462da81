"""Conversion arguments carried in dicts and tuples and splatted: `.to(**opts)`, `.to(*spec)`."""
import torch


class SplatImpl:
    def __init__(self):
        self.spec = (torch.float16,)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        opts = {"dtype": query.dtype}
        dense = kv_cache.to(**opts)  # positive: f4 CL001 dtype carried in a kwargs dict
        k_plane, v_plane = kv_cache.unbind(0)
        v_dense = v_plane.to(*self.spec, non_blocking=True)  # positive: f4 CL001 dtype carried in an args tuple
        dev = {"device": query.device}
        moved = kv_cache.to(**dev)  # negative: device-only move
        same = kv_cache.to(**{"dtype": kv_cache.dtype})  # negative: its own dtype
        slots = attn_metadata.slot_mapping.to(**{"dtype": torch.int64})  # negative: slot mapping
        return dense, v_dense, moved, same, slots
