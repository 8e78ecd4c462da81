from . import kernels_fallback

_POLICY_NAMES = {4: "int4", 8: "int8", 16: "fp8"}


class FallbackModelAgent:
    def __init__(self, cache_engine, quant_policy: int):
        self.cache_engine = cache_engine
        self.quant_policy = quant_policy

    async def _async_model_forward(self, inputs, block_offsets):
        fn = getattr(kernels_fallback, f"dequant_{_POLICY_NAMES[self.quant_policy]}")
        out = []
        for (k_cache, v_cache), (k_sz, v_sz) in zip(self.cache_engine.gpu_cache, self.cache_engine.scales_zeros):
            out.append((fn(k_cache, k_sz), fn(v_cache, v_sz)))
        blocks = [kernels_fallback.dequant_blocks(k, block_offsets) for k, _ in self.cache_engine.gpu_cache]
        return out, blocks
