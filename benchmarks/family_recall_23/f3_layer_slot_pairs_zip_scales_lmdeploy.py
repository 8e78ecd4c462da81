# lmdeploy CacheEngine: per-layer (cache, scales) pairs assembled by zip; a debug dump walks them per step.
import torch


class CacheEngine:
    def __init__(self, cache_config, model_config):
        self.gpu_cache = self._allocate_gpu_cache()
        self.kv_pairs = list(zip((c[0] for c in self.gpu_cache), (c[2] for c in self.gpu_cache)))


class ModelAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        out = await self._forward(inputs)
        if self._dump_kv:
            for layer_idx, (k_cache, k_scale) in enumerate(self.cache_engine.kv_pairs, start=self.start_layer):
                self._dump[layer_idx] = (
                    k_cache.to(torch.float16),  # positive: f3 CL001 key cache from the zipped pair list
                    k_scale.to(torch.float16),  # negative: scale tensor of the pair
                )
        return out
