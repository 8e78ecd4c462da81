"""lmdeploy MetaX MACA: a module function bound onto the impl with types.MethodType when the KV is quantized."""
import types

import torch


def _widen_caches(self, k_cache, v_cache):
    return k_cache.to(self.compute_dtype), v_cache.to(self.compute_dtype)  # positive: f4 CL001 both whole layer caches; bound as self._kv_for_kernel


def _passthrough(self, k_cache, v_cache):
    return k_cache, v_cache


class MacaPagedAttentionImpl:
    def __init__(self, quant_policy: int, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype
        fn = _widen_caches if quant_policy in (4, 8) else _passthrough
        self._kv_for_kernel = types.MethodType(fn, self)

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        if attn_metadata.is_decoding:
            k, v = self._kv_for_kernel(k_cache, v_cache)
            return self._paged_decode(query, k, v, attn_metadata)
        blocks = attn_metadata.block_offsets.flatten()
        k = k_cache.index_select(0, blocks).to(self.compute_dtype)  # negative: blocks first
        v = v_cache.index_select(0, blocks).to(self.compute_dtype)  # negative: blocks first
        key = key.to(self.compute_dtype)  # negative: new tokens
        return self._prefill(query, key, k, v, attn_metadata)
