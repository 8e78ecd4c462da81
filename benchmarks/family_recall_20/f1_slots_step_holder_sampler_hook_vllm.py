import torch


class StepKVHolder:
    """Carries the runner's kv_caches list and the compute dtype into the per-step sampler hook."""

    __slots__ = ("kv_caches", "dtype")

    def __init__(self, kv_caches, dtype):
        self.kv_caches = kv_caches
        self.dtype = dtype


class KVDiversitySampler:
    def __init__(self, holder):
        self.holder = holder

    def penalty(self, layer_idx, block_ids):
        cache = self.holder.kv_caches[layer_idx]
        keys = cache[0].to(self.holder.dtype)  # positive: f1 CL001 whole key plane of the layer reached through the holder object
        recent = cache[0, block_ids].to(self.holder.dtype)  # negative: blocks selected before the cast
        return keys, recent


class GPUModelRunner:
    def execute_model(self, scheduler_output, intermediate_tensors=None):
        holder = StepKVHolder(self.kv_caches, self.model_config.dtype)
        sampler = KVDiversitySampler(holder)
        return sampler.penalty(0, scheduler_output.block_ids)
