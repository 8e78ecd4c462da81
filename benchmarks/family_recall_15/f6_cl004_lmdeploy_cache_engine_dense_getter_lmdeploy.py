import torch


class CacheEngine:
    def __init__(self, cache_config, model_config):
        self.cache_config = cache_config
        self.model_dtype = model_config.dtype
        self.gpu_cache = self._allocate_gpu_cache()
        self.k_scales = [None] * len(self.gpu_cache)

    def _allocate_gpu_cache(self):
        return []

    def get_layer_dense(self, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        if self.cache_config.quant_policy == 8:
            k = k_cache.float() * self.k_scales[layer_idx]  # positive: f6 CL004 accessor dequantizes the whole key cache
            return k.to(self.model_dtype), v_cache
        return k_cache, v_cache

    def get_layer_blocks(self, layer_idx, block_ids):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        return k_cache[block_ids].to(self.model_dtype), v_cache[block_ids].to(self.model_dtype)  # negative: block gather

    def num_gpu_blocks(self):
        return torch.tensor(len(self.gpu_cache), dtype=torch.int64)  # negative: a count


class DlinferFallbackAttention:
    def forward(self, query, cache_engine, layer_idx, attn_metadata):
        k, v = cache_engine.get_layer_dense(layer_idx)  # note: per-step caller of get_layer_dense
        return query @ k.flatten(0, 1).T
