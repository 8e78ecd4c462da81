"""Per-layer caches kept in a dict and fetched with a walrus over dict.get."""
import torch


class PagedAttentionEagerFallback:
    def __init__(self, cache_engine, scales=None):
        self._layer_caches = {i: kv for i, kv in enumerate(cache_engine.gpu_cache)}
        self._scales = scales or {}

    def forward(self, query, key, value, attn_metadata, layer_idx):
        out_dtype = query.dtype
        if (kv := self._layer_caches.get(layer_idx)) is not None:
            k_cache = kv[0].half()  # positive: f3 CL001 whole key cache of the layer, per forward
            v_cache = kv[1].half()  # positive: f3 CL001 whole value cache of the layer
        else:
            raise KeyError(layer_idx)
        if (sz := self._scales.get(layer_idx)) is not None:
            sz = sz.float()  # negative: scales/zeros
        if (offsets := attn_metadata.block_offsets) is not None:
            offsets = offsets.to(torch.int64)  # negative: block table
        out = self._sdpa_paged(query.half(), k_cache, v_cache, offsets, sz)  # negative: the step's queries
        return out.to(out_dtype)  # negative: the output
