# lmdeploy pytorch engine: a per-step history gatherer built around the cache engine's gpu caches.
import torch


class HistoryGatherer:
    def __init__(self, cache_engine, out_dtype):
        self.caches = cache_engine.gpu_cache
        self.out_dtype = out_dtype

    def layer(self, idx):
        k_cache, v_cache = self.caches[idx][:2]
        return k_cache, v_cache

    def rows(self, idx, block_offsets):
        k_cache, v_cache = self.layer(idx)
        return k_cache[block_offsets].to(self.out_dtype), v_cache[block_offsets].to(self.out_dtype)  # negative: rows first


class ModelAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        gatherer = HistoryGatherer(self.cache_engine, self.model_config.dtype)
        for idx in range(self.model_config.num_layers):
            k_cache, v_cache = gatherer.layer(idx)
            if self.cache_config.quant_policy == 8 and not self._has_fp8_kernel:
                k_cache = k_cache.to(gatherer.out_dtype)  # positive: f1 CL001 whole key cache via the gatherer
            inputs.history_caches.append((k_cache, gatherer.rows(idx, inputs.block_offsets)))
        return await self._forward(inputs)
