import contextlib

import torch


def _native_paged_decode(query, k_cache, v_cache, block_offsets):
    raise NotImplementedError("int4 paged decode not built for this arch")


def _dense_layer(k_cache, v_cache, dtype):
    return k_cache.to(dtype), v_cache.to(dtype)  # positive: f4 CL001 both whole caches converted; reached when the native kernel raises


class Int4PagedAttention(torch.nn.Module):
    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        out = None
        with contextlib.suppress(NotImplementedError):
            out = _native_paged_decode(query, k_cache, v_cache, attn_metadata.block_offsets)
        if out is None:
            out = _dense_layer(k_cache, v_cache, query.dtype)
        last = k_cache[attn_metadata.block_offsets[:, -1]].to(query.dtype)  # negative: blocks selected before the cast
        return out, last
