import torch


class BaseModelAgent:
    def __init__(self, cache_engine, model_config):
        self._cache_engine = cache_engine
        self.compute_dtype = model_config.dtype

    @property
    def kv_caches(self):
        return self._cache_engine.gpu_cache

    def _dense_layer(self, idx):
        k_cache, v_cache = self.kv_caches[idx]
        return k_cache.to(self.compute_dtype), v_cache.to(self.compute_dtype)  # positive: f2 CL001 whole target layer when the draft subclass overrides kv_caches

    def _block_layer(self, idx, block_offsets):
        k_cache, v_cache = self.kv_caches[idx]
        return k_cache[block_offsets].to(self.compute_dtype), v_cache[block_offsets].to(self.compute_dtype)  # negative: blocks

    async def _async_model_forward(self, inputs, step_ctx):
        return [self._block_layer(i, step_ctx.block_offsets) for i in range(step_ctx.num_layers)]


class EagleDraftAgent(BaseModelAgent):
    def __init__(self, target_agent, draft_cache_engine, model_config):
        super().__init__(draft_cache_engine, model_config)
        self.target = target_agent

    @property
    def kv_caches(self):
        return self.target.kv_caches

    async def _async_model_forward(self, inputs, step_ctx):
        return self._dense_layer(step_ctx.shared_layer_idx)
