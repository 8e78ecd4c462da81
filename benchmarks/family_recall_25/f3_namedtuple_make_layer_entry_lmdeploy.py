from typing import NamedTuple

import torch


class LayerEntry(NamedTuple):
    k_cache: torch.Tensor
    v_cache: torch.Tensor
    k_scale: torch.Tensor

    def widened(self):
        return self._replace(k_cache=self.k_cache.half())  # positive: f3 CL001 whole key cache widened inside a NamedTuple method reached from forward


class ModelAgent:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        entries = [LayerEntry._make(t) for t in self.cache_engine.gpu_cache]
        dense = [e.widened() for e in entries]
        scales = [e.k_scale.to(torch.float16) for e in entries]  # negative: scales
        return dense, scales
