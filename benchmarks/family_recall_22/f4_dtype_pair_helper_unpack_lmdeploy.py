import torch


class PagedDecodeFallback:
    def __init__(self, cache_config, model_config):
        self.cache_dtype = cache_config.dtype
        self.model_dtype = model_config.dtype

    def _dtypes(self):
        return self.cache_dtype, self.model_dtype

    def forward(self, query, k_cache, v_cache, attn_metadata):
        _, compute = self._dtypes()
        store, _ = self._dtypes()
        k = k_cache.to(compute)  # positive: f4 CL001 whole key cache widened to the second dtype of the helper's pair
        v = v_cache.to(store)  # negative: same dtype (the cache's own)
        rows = v_cache[attn_metadata.block_offsets[0]].to(compute)  # negative: one sequence's blocks
        return k, v, rows
