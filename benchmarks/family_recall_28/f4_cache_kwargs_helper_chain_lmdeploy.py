"""lmdeploy model agent: caches travel as **kwargs from a method into a module-level densify helper."""
import torch


def _densify(caches, dtype):
    return [(k.to(dtype), v.to(dtype)) for k, v in caches]  # positive: f4 CL001 every layer's whole caches (one line, one finding)


def _densify_blocks(caches, block_offsets, dtype):
    return [(k[block_offsets].to(dtype), v[block_offsets].to(dtype)) for k, v in caches]  # negative: blocks gathered first


class BaseModelAgent:
    def __init__(self, model, cache_engine, dtype, paged):
        self.model = model
        self.cache_engine = cache_engine
        self.dtype = dtype
        self.paged = paged

    def _cache_kwargs(self):
        return {"past_key_values": self.cache_engine.gpu_cache}

    def _forward_impl(self, inputs, past_key_values):
        if self.paged:
            kv = _densify_blocks(past_key_values, inputs.block_offsets, self.dtype)
        else:
            kv = _densify(past_key_values, self.dtype)
        return self.model(inputs.input_ids, inputs.position_ids, kv)

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        inputs.position_ids = inputs.position_ids.to(torch.int64)  # negative: positions
        return self._forward_impl(inputs, **self._cache_kwargs())
