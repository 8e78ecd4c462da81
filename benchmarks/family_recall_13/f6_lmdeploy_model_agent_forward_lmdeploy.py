import torch


class CacheEngine:
    def __init__(self, cache_config, model_config):
        self.gpu_cache = []
        self.local_gpu_cache = self.gpu_cache


class BaseModelAgent:
    def __init__(self, model_config, cache_config, backend_config):
        self.model_config = model_config
        self.cache_engine = CacheEngine(cache_config, model_config)
        self.dense_fallback = backend_config.dense_fallback

    def _forward_impl(self, inputs, swap_in_map, swap_out_map):
        if swap_in_map:
            self.cache_engine.swap_in(swap_in_map)
        caches = self.cache_engine.gpu_cache
        if self.dense_fallback:
            caches = [(k.to(self.model_config.dtype), v) for k, v in caches]  # positive: f6 CL001 every layer key cache upcast in the agent's step
        seq = inputs.seq_length.to(torch.int32)  # negative: sequence lengths
        offsets = inputs.block_offsets.to(torch.int32)  # negative: block offsets
        return self.patched_model(inputs.input_ids, past_key_values=caches, seq_length=seq, block_offsets=offsets)

    async def async_forward(self, inputs, swap_in_map, swap_out_map):
        return self._forward_impl(inputs, swap_in_map, swap_out_map)
