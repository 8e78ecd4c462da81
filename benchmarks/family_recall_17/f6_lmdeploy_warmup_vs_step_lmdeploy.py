"""lmdeploy model agent on a device without the FP8 attention kernel: warmup widens the
caches once (setup), the forward step does it every time."""
import torch


class Fp8FallbackModelAgent:
    def __init__(self, cache_engine, compute_dtype=torch.bfloat16):
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    def warmup(self):
        for k_cache, v_cache in self.cache_engine.gpu_cache:
            k_cache.to(self.compute_dtype)  # negative: warmup, once at start
        return None

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        self.cache_engine.swap_in(swap_in_map)
        self.cache_engine.swap_out(swap_out_map)
        caches = []
        for k_cache, v_cache in self.cache_engine.gpu_cache:
            caches.append(
                (k_cache.to(self.compute_dtype), v_cache.to(self.compute_dtype))  # positive: f6 CL001 whole layer caches each step
            )
        return await self.model.forward_async(inputs, caches)
