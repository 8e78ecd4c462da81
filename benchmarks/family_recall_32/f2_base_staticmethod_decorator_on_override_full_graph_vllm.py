"""vLLM FlashAttention fallback under a FULL cudagraph: a base staticmethod used as a decorator on the subclass override."""
import functools

import torch


class FlashAttentionImplBase:
    @staticmethod
    def with_dense_kv(fn):
        @functools.wraps(fn)
        def wrapper(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
            dense = kv_cache.to(query.dtype)  # positive: f2 CL001 whole [2, blocks, ...] cache widened before the override runs
            return fn(self, layer, query, key, value, dense, attn_metadata, output)
        return wrapper

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        return output


class Fp8FallbackFlashAttentionImpl(FlashAttentionImplBase):
    @FlashAttentionImplBase.with_dense_kv
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        # replayed by the FULL cudagraph wrapper each decode step
        scale = layer._k_scale.to(query.dtype)  # negative: scale
        return super().forward(layer, query, key, value, kv_cache, attn_metadata, output)


class PrefixFallbackFlashAttentionImpl(FlashAttentionImplBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        prefix = kv_cache[:, attn_metadata.block_table[:, 0]].to(query.dtype)  # negative: first-block gather
        return super().forward(layer, query, key, value, prefix, attn_metadata, output)
