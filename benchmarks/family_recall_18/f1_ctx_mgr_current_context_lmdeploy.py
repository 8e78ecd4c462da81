"""lmdeploy-style fallback attention that finds its caches through the step context manager."""
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class StepContext:
    block_offsets: torch.Tensor
    kv_caches: list = field(default_factory=list)


class StepContextManager:
    def __init__(self):
        self._current = None

    def set_context(self, ctx):
        self._current = ctx

    def current_context(self):
        return self._current


class NoFp8KernelAttention(nn.Module):
    """Used when the Triton paged kernel was built without FP8 KV support."""

    def __init__(self, layer_idx, ctx_mgr: StepContextManager):
        super().__init__()
        self.layer_idx = layer_idx
        self.ctx_mgr = ctx_mgr

    def forward(self, query, attn_metadata):
        ctx = self.ctx_mgr.current_context()
        k_cache, v_cache = ctx.kv_caches[self.layer_idx][:2]
        k = k_cache.to(query.dtype)  # positive: f1 CL001 whole FP8 key cache of the layer widened per step
        v = v_cache.to(query.dtype)  # positive: f1 CL001 whole FP8 value cache of the layer widened per step
        first_seq = k_cache[ctx.block_offsets[0]].to(query.dtype)  # negative: one sequence's blocks
        scales = ctx.kv_caches[self.layer_idx][2].to(query.dtype)  # negative: the scale/zero tensor, not the cache
        return self._paged(query, k, v, attn_metadata, first_seq, scales)

    def _paged(self, query, k, v, attn_metadata, first_seq, scales):
        return query
