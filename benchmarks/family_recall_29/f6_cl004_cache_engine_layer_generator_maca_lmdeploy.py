"""lmdeploy MetaX MACA: the cache engine's iter_dense_layers() generator yields each layer widened."""
import torch


class MacaCacheEngine:
    def __init__(self, cache_config, model_config, dtype=torch.float16):
        self.cache_config, self.model_config, self.dtype = cache_config, model_config, dtype
        self.gpu_cache = self._allocate_gpu_cache()

    def iter_dense_layers(self):
        for k_cache, v_cache in self.gpu_cache:
            yield k_cache.to(self.dtype), v_cache.to(self.dtype)  # positive: f6 CL004 the engine's own accessor converts each whole layer

    def layer_blocks(self, idx, block_ids):
        k_cache, v_cache = self.gpu_cache[idx]
        return k_cache[block_ids].to(self.dtype), v_cache[block_ids].to(self.dtype)  # negative: blocks gathered first

    def swap_out(self, src_to_dst):
        for (k, v), (hk, hv) in zip(self.gpu_cache, self.cpu_cache):
            hk.copy_(k.to("cpu"))  # negative: device move only
            hv.copy_(v.to("cpu"))  # negative: device move only


class MacaModelAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        caches = list(self.cache_engine.iter_dense_layers())
        return self.patched_model(inputs, past_key_values=caches)
