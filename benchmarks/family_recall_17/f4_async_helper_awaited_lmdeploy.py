"""lmdeploy: the model agent awaits an async helper per layer to widen the cache pair,
yielding to the event loop between layers."""
import asyncio

import torch


class AsyncDenseAgent:
    def __init__(self, cache_engine, compute_dtype=torch.float16):
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    async def _dense_layer(self, k_cache, v_cache):
        await asyncio.sleep(0)
        k_dense = k_cache.to(self.compute_dtype)  # positive: f4 CL001 whole key cache handed in by the step
        v_dense = v_cache.to(self.compute_dtype)  # positive: f4 CL001 whole value cache handed in by the step
        return k_dense, v_dense

    async def _tail_blocks(self, k_cache, block_ids):
        await asyncio.sleep(0)
        return k_cache[block_ids].to(self.compute_dtype)  # negative: gathered blocks

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        caches = [await self._dense_layer(k, v) for k, v in self.cache_engine.gpu_cache]
        tail = await self._tail_blocks(self.cache_engine.gpu_cache[0][0], inputs.block_offsets[:, -1])
        return await self.model.forward_async(inputs, caches, tail)
