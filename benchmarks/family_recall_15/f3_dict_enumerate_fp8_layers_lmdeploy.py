import torch


class QuantAwareModelAgent:
    def __init__(self, cache_engine, model_config):
        self.cache_engine = cache_engine
        self.dtype = model_config.dtype
        self.fp8_layers = frozenset(model_config.fp8_kv_layers)

    def _dense_fp8_layers(self):
        by_idx = dict(enumerate(self.cache_engine.gpu_cache))
        return {
            i: (k.to(self.dtype), v)  # positive: f3 CL001 whole key caches of the FP8 layers, from dict(enumerate(...))
            for i, (k, v) in by_idx.items()
            if i in self.fp8_layers
        }

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        dense = self._dense_fp8_layers()
        scales = {i: s.float() for i, s in enumerate(self.cache_engine.k_scales)}  # negative: scale buffers
        offs = inputs.block_offsets
        first = dict(enumerate(self.cache_engine.gpu_cache))[0][1][offs].to(self.dtype)  # negative: block gather
        return await self._forward_impl(inputs, dense, scales, first)

    async def _forward_impl(self, inputs, dense, scales, first):
        return inputs
