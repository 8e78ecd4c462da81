from .fallback import dense_caches, dense_rows


class FallbackModelAgent:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    async def _async_model_forward(self, inputs):
        out = []
        for k_cache, v_cache in self.cache_engine.gpu_cache:
            out.append(dense_caches(k_cache, v_cache))
            out.append(dense_rows(k_cache, inputs.block_offsets))
        return out
