# lmdeploy pytorch engine: a small inspector around the CacheEngine, used by the model
# agent for an optional per-step KV drift statistic.
import torch


class KVInspector:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def layer(self, idx):
        return self.cache_engine.gpu_cache[idx]


class BaseModelAgent:
    def __init__(self, cache_engine, stats_enabled=False):
        self.inspector = KVInspector(cache_engine)
        self.stats_enabled = stats_enabled

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        output = self._forward_impl(inputs, swap_in_map, swap_out_map)
        if self.stats_enabled:
            k_cache, v_cache = self.inspector.layer(0)[:2]
            drift = k_cache.float().abs().mean()  # positive: f1 CL001 whole layer-0 key cache through the inspector
            blocks = inputs.block_offsets[0]
            vrow = v_cache[blocks].float().abs().mean()  # negative: blocks of one sequence before the cast
            self._log(drift, vrow)
        return output
