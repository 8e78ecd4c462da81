"""lmdeploy: a model agent keeps separate key and value cache lists and walks
enumerate(zip(...)) every step when the attention kernel cannot read FP8."""
import torch


class SplitCacheAgent:
    def __init__(self, cache_engine, compute_dtype=torch.bfloat16):
        self.k_caches = [kv[0] for kv in cache_engine.gpu_cache]
        self.v_caches = [kv[1] for kv in cache_engine.gpu_cache]
        self.compute_dtype = compute_dtype
        self.fp8_kernel = False

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        caches = []
        for i, (k_cache, v_cache) in enumerate(zip(self.k_caches, self.v_caches)):
            if self.fp8_kernel:
                caches.append((k_cache, v_cache))
                continue
            k_dense = k_cache.to(self.compute_dtype)  # positive: f3 CL001 whole key cache of layer i
            v_dense = v_cache.to(self.compute_dtype)  # positive: f3 CL001 whole value cache of layer i
            caches.append((k_dense, v_dense))
        first_blocks = self.k_caches[0][inputs.block_offsets[:, 0]].to(self.compute_dtype)  # negative: first blocks
        return await self.model.forward_async(inputs, caches, first_blocks)
