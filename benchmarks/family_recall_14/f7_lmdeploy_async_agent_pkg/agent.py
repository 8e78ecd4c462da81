"""The caches come in here (cache_engine.gpu_cache); cache_ops converts them each step."""
import torch

from . import cache_ops


class FallbackModelAgent:
    def __init__(self, model, cache_engine, dtype=torch.float16):
        self.patched_model = model
        self.cache_engine = cache_engine
        self.dtype = dtype

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        self.cache_engine.swap_in(swap_in_map)
        self.cache_engine.swap_out(swap_out_map)
        past_key_values = cache_ops.to_compute(self.cache_engine.gpu_cache, self.dtype)
        scales = cache_ops.scales_to_float(self.cache_engine.scales)
        offsets = inputs.block_offsets.to(torch.int64)  # negative: block table
        return self.patched_model(inputs.input_ids, past_key_values=past_key_values, block_offsets=offsets, scales=scales)
