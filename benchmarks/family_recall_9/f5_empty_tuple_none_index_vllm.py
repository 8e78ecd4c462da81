"""Whole-keeping index spellings: `x[()]`, `x[0:None]`, `x[:, None]`, `x[None:]`.

Each keeps every block of the cache; the step-bounded and gathered reads are look-alikes.
"""
import torch


class OddIndexImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = kv_cache[()].to(query.dtype)  # positive: f5 CL001 empty-tuple index is the whole cache
        k_plane = kv_cache[0]
        b = k_plane[0:None].half()  # positive: f5 CL001 open-ended slice 0:None keeps every block
        c = kv_cache[1][:, None].to(query.dtype)  # positive: f5 CL001 V plane with a new axis
        d = kv_cache[None:].float()  # positive: f5 CL001 None-start slice keeps everything
        n = attn_metadata.num_actual_tokens
        e = k_plane.flatten(0, 1)[:n].to(query.dtype)  # negative: the step's tokens
        f = kv_cache[:, attn_metadata.block_table[0]].to(query.dtype)  # negative: gathered blocks
        return a, b, c, d, e, f
