import itertools

import torch


class QuantLayerDequant:
    """Layers quantized to int8 are listed by a boolean mask from the quant config."""

    def __init__(self, cache_engine, int8_mask):
        self.cache_engine = cache_engine
        self.int8_mask = int8_mask

    def dense_caches(self, dtype):
        gpu_cache = self.cache_engine.gpu_cache
        out = []
        for k_cache, v_cache in itertools.compress(gpu_cache, self.int8_mask):
            out.append((k_cache.to(dtype), v_cache.to(dtype)))  # positive: f3 CL001 whole caches of masked layers (one line)
        return out


class ModelAgent:
    def __init__(self, cache_engine, int8_mask):
        self.dequant = QuantLayerDequant(cache_engine, int8_mask)
        self.cache_engine = cache_engine

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        dense = self.dequant.dense_caches(torch.float16)
        k0, _ = self.cache_engine.gpu_cache[0]
        first = k0[inputs.block_offsets[0]].half()  # negative: one sequence's blocks
        return dense, first
