"""An async forward that borrows each dense layer through an asynccontextmanager (unusual)."""
import contextlib

import torch


class AsyncFallbackAgent:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.gpu_cache = cache_engine.gpu_cache
        self.dtype = dtype

    @contextlib.asynccontextmanager
    async def _dense_layer(self, idx):
        k_cache, v_cache = self.gpu_cache[idx][:2]
        k_dense = k_cache.to(self.dtype)  # positive: f4 CL001 whole key cache, entered once per layer per step
        v_dense = v_cache.to(self.dtype)  # positive: f4 CL001 whole value cache
        try:
            yield k_dense, v_dense
        finally:
            del k_dense, v_dense

    async def async_forward(self, inputs, swap_in_map, swap_out_map):
        offsets = inputs.block_offsets.to(torch.int64)  # negative: block table
        first = self.gpu_cache[0][0][offsets].to(self.dtype)  # negative: the batch's blocks
        hidden = self._embed(inputs.input_ids, first)
        for idx in range(len(self.gpu_cache)):
            async with self._dense_layer(idx) as (k, v):
                hidden = await self._attend_layer(idx, hidden, k, v, offsets)
        return hidden
