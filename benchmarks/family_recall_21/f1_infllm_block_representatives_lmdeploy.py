import torch


class InfLLMBlockMemory:
    """InfLLM: representative keys per memory block, recomputed from the cache each step."""

    def __init__(self, cache_engine, block_size: int, num_repr: int = 4):
        self.cache_engine = cache_engine
        self.block_size = block_size
        self.num_repr = num_repr

    def representatives(self, layer_idx: int) -> torch.Tensor:
        k_cache, _ = self.cache_engine.gpu_cache[layer_idx]
        dense = k_cache.half()  # positive: f1 CL001 whole int8/fp8 key cache of the layer
        return dense.mean(dim=1, keepdim=True)

    def load(self, layer_idx: int, block_offsets: torch.Tensor) -> torch.Tensor:
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        return torch.stack([k_cache[block_offsets], v_cache[block_offsets]]).half()  # negative: looked-up blocks only


class InfLLMModelAgent:
    def __init__(self, cache_engine, block_size):
        self.memory = InfLLMBlockMemory(cache_engine, block_size)

    async def _async_model_forward(self, inputs, num_layers, block_offsets):
        reps = [self.memory.representatives(i) for i in range(num_layers)]
        scale = inputs.k_scales.half()  # negative: scales
        loaded = [self.memory.load(i, block_offsets) for i in range(num_layers)]
        return reps, loaded, scale
