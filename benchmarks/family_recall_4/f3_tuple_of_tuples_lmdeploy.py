"""Tuple-of-(k, v)-tuples and an enumerate-built dict over the engine's caches."""
import torch


class TupleCacheAttention:
    def __init__(self, cache_engine, num_layers, max_batches):
        self.planes = tuple((k, v) for k, v in cache_engine.gpu_cache)
        self.k_index = {i: kv[0] for i, kv in enumerate(cache_engine.gpu_cache)}
        self.offsets = tuple(torch.zeros(max_batches, dtype=torch.int32) for _ in range(num_layers))
        self.num_layers = num_layers

    def forward(self, query, key, value, attn_metadata, layer_idx, **kwargs):
        vc = self.planes[layer_idx][1].half()  # positive: f3 CL001 tuple of (k, v) tuples, whole v cache
        kc = self.k_index[layer_idx].to(query.dtype)  # positive: f3 CL001 enumerate-built dict of whole k caches
        off = self.offsets[layer_idx].to(torch.int64)  # negative: per-batch offsets tuple
        return self._decode(query, kc, vc, off, attn_metadata)

    def run(self, query, attn_metadata, layer_idx):
        kk = None
        for i, (k_cache, v_cache) in enumerate(self.planes):
            if i == layer_idx:
                kk = k_cache.to(dtype=query.dtype)  # positive: f3 CL001 enumerate over the tuple, the chosen layer's whole k cache
                vv = v_cache[attn_metadata.block_offsets].to(query.dtype)  # negative: blocks gathered first
        return kk

    def _decode(self, query, k, v, off, attn_metadata):
        return torch.empty_like(query)


def fill_kv_cache(key, value, k_cache, v_cache, attn_metadata):
    blocks = attn_metadata.block_offsets
    k_new = key.to(k_cache.dtype)  # negative: batch key written into the cache
    v_new = value.to(v_cache.dtype)  # negative: batch value written into the cache
    k_cache[blocks[:, 0]] = k_new[: blocks.shape[0]].unsqueeze(1)
    v_cache[blocks[:, 0]] = v_new[: blocks.shape[0]].unsqueeze(1)
    return k_cache, v_cache


def plane_shapes(planes):
    return tuple((k.shape, v.shape) for k, v in planes)
