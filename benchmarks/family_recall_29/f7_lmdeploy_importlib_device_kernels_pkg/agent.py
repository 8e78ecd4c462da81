"""Model agent: imports the kernels module for the device type and reads caches through it."""
import importlib

import torch


class DlinferModelAgent:
    def __init__(self, model, cache_engine, device_type: str, dtype=torch.float16):
        self.model, self.cache_engine, self.dtype = model, cache_engine, dtype
        self.kernels = importlib.import_module(f"{__package__}.kernels_{device_type}")

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        if inputs.is_decoding:
            caches = [self.kernels.dense_layer(k, v, self.dtype) for k, v in self.cache_engine.gpu_cache]
        else:
            caches = [self.kernels.paged_layer(k, v, inputs.block_offsets, self.dtype)
                      for k, v in self.cache_engine.gpu_cache]
        inputs.input_ids = inputs.input_ids.to(torch.int64)  # negative: token ids
        return self.model(inputs, past_key_values=caches)
