import torch


class StepContextBuilder:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def build(self, inputs, dtype):
        caches = [[t.to(dtype) for t in pair] for pair in self.cache_engine.gpu_cache]  # positive: f3 CL001 whole k and v of every layer
        offsets = [row.to(torch.int32) for row in inputs.block_offsets]  # negative: block offsets
        return caches, offsets


class ModelAgent:
    def __init__(self, cache_engine):
        self.builder = StepContextBuilder(cache_engine)

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        if inputs.is_decoding:
            caches, offsets = self.builder.build(inputs, torch.float16)
            return caches, offsets
        return inputs
