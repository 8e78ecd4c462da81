from .registry import REGISTRY


class ModelAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        fn = REGISTRY["fp8_full"]
        for idx, (k_cache, v_cache) in enumerate(self.cache_engine.gpu_cache):
            inputs.dense_k[idx] = fn(k_cache, self.model_config.dtype)
        return await self._forward(inputs)
