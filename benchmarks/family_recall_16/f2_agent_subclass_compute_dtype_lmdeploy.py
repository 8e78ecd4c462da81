import torch


class BaseModelAgent:
    compute_dtype = None

    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def _layer_kv(self, idx):
        k, v = self.cache_engine.gpu_cache[idx]
        if self.compute_dtype is not None and k.dtype != self.compute_dtype:
            k = k.to(self.compute_dtype)  # positive: f2 CL001 whole key cache when the Turing subclass sets compute_dtype
            v = v.to(self.compute_dtype)  # positive: f2 CL001 whole value cache, same condition
        return k, v

    async def _async_model_forward(self, inputs, num_layers):
        outs = [self._layer_kv(i) for i in range(num_layers)]
        outs.append(inputs.input_ids.to(torch.int32))  # negative: token ids
        return outs


class TuringFp8Agent(BaseModelAgent):
    compute_dtype = torch.float16


class HopperAgent(BaseModelAgent):
    pass
