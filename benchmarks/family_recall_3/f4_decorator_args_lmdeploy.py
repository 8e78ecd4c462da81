import functools

import torch


def upcast_args(dtype):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(query, k_cache, v_cache, *rest):
            return fn(query, k_cache.to(dtype), v_cache.to(dtype), *rest)  # note: decorator cast, labelled at the calls
        return wrapper
    return deco


@upcast_args(torch.float16)
def _paged_ref(query, k_cache, v_cache, block_offsets):
    return query


class DecoratedAttention:
    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        out = _paged_ref(query, k_cache, v_cache, attn_metadata.block_offsets)  # positive: f4 CL001 decorated function casts the whole caches it is given
        k_sel = k_cache[attn_metadata.block_offsets]
        v_sel = v_cache[attn_metadata.block_offsets]
        ref = _paged_ref(query, k_sel, v_sel, attn_metadata.block_offsets)  # negative: gathered blocks only
        return out, ref
