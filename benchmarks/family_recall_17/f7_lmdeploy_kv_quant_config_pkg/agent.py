"""The model agent: owns the cache engine and the quant config."""
from . import KVQuantConfig
from .dequant import widen_layer, widen_scales


class Int8FallbackAgent:
    def __init__(self, cache_engine, cfg: KVQuantConfig = KVQuantConfig()):
        self.cache_engine = cache_engine
        self.cfg = cfg

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        caches = self.cache_engine.gpu_cache
        if self.cfg.quant_policy == 8 and not self.cfg.has_int8_kernel:
            caches = [widen_layer(k, v, self.cfg) for k, v in caches]
        sz = [widen_scales(s, self.cfg) for s in self.cache_engine.scales_zeros]
        return await self.model.forward_async(inputs, caches, sz)
