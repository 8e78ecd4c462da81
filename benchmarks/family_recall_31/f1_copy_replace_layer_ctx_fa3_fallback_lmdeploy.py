# lmdeploy pytorch, FA3 decode fallback when the kernel has no FP8-KV route: one frozen per-layer context
# is re-targeted every step with copy.replace (Python 3.13) instead of being rebuilt.
import copy
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class _LayerCtx:
    cache_engine: object
    layer_idx: int
    compute_dtype: torch.dtype

    def caches(self):
        return self.cache_engine.gpu_cache[self.layer_idx]


class FA3FallbackAttention:
    def __init__(self, cache_engine, model_config):
        self._ctx = _LayerCtx(cache_engine, 0, model_config.dtype)

    def forward(self, query, attn_metadata, layer_idx):
        ctx = copy.replace(self._ctx, layer_idx=layer_idx)
        k_cache, v_cache = ctx.caches()
        if attn_metadata.is_decoding:
            k = k_cache.to(ctx.compute_dtype)  # positive: f1 CL001 whole key cache of the layer the replaced context names
            v = v_cache.to(ctx.compute_dtype)  # positive: f1 CL001 whole value cache of that layer
        else:
            first = attn_metadata.block_offsets[:, 0]
            k = k_cache[first].to(ctx.compute_dtype)  # negative: first block of each sequence
            v = v_cache[first].to(ctx.compute_dtype)  # negative: first block of each sequence
        q = query.to(ctx.compute_dtype)  # negative: the query
        return self._attend(q, k, v, attn_metadata)
