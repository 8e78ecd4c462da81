from typing import TypedDict

import torch


class StepInputs(TypedDict):
    k_caches: list
    v_caches: list
    block_offsets: torch.Tensor
    layer_idx: int


def build_step_inputs(cache_engine, ctx, layer_idx) -> StepInputs:
    ks, vs = zip(*cache_engine.gpu_cache)
    return StepInputs(k_caches=list(ks), v_caches=list(vs), block_offsets=ctx.block_offsets, layer_idx=layer_idx)


class SdpaFallbackAttention:
    def __init__(self, cache_engine, dtype):
        self.cache_engine = cache_engine
        self.dtype = dtype

    def forward(self, hidden_states, step_ctx, layer_idx):
        inp = build_step_inputs(self.cache_engine, step_ctx, layer_idx)
        k = inp["k_caches"][inp["layer_idx"]].to(self.dtype)  # positive: f3 CL001 whole key cache out of a TypedDict
        v_all = inp["v_caches"][inp["layer_idx"]].to(self.dtype)  # positive: f3 CL001 whole value cache
        v = inp["v_caches"][inp["layer_idx"]][inp["block_offsets"]].to(self.dtype)  # negative: block gather
        offs = inp["block_offsets"].to(torch.int64)  # negative: block table
        return self._sdpa(hidden_states, k, v, offs)

    def _sdpa(self, h, k, v, offs):
        return h
