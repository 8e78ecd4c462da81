# vLLM TPU (Pallas) runner on a TPU generation without an FP8 ragged paged attention kernel: the runner's
# KV pool class returns each layer through an accessor that widens the stored FP8 cache.
import torch


class PallasKVPool:
    def __init__(self, kv_caches, compute_dtype):
        self._caches = kv_caches
        self.compute_dtype = compute_dtype

    def layer(self, idx: int):
        return self._caches[idx].to(self.compute_dtype)  # positive: f6 CL004 the pool's own accessor widens the whole layer cache

    def layer_raw(self, idx: int):
        return self._caches[idx]

    def layer_pages(self, idx: int, page_indices):
        return self._caches[idx][page_indices].to(self.compute_dtype)  # negative: pages of the batch


class PallasAttentionImpl:
    def __init__(self, pool: PallasKVPool, layer_idx: int):
        self.pool = pool
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self.pool.layer(self.layer_idx)
        k_new = key.to(self.pool.layer_raw(self.layer_idx).dtype)  # negative: new tokens for the writer
        return self._ragged_paged_attention(query, k_new, value, kv, attn_metadata.page_indices)
