from typing import TypedDict

import torch


class KVEntry(TypedDict):
    k: torch.Tensor
    v: torch.Tensor
    k_scale: torch.Tensor


class AscendOpsBackend:
    """Ascend: the fused infer-attention op takes fp16 caches; int8 caches are widened here."""

    @staticmethod
    def _entries(kv_caches, kv_quant_params):
        return [KVEntry(k=k, v=v, k_scale=s) for (k, v), s in zip(kv_caches, kv_quant_params)]

    @classmethod
    def update_step_context(cls, step_context):
        entries = cls._entries(step_context.kv_caches, step_context.kv_quant_params)
        caches = []
        for e in entries:
            k = e["k"].to(torch.float16)  # positive: f3 CL001 whole key cache from a TypedDict entry, per step
            v = e["v"].to(torch.float16)  # positive: f3 CL001 whole value cache
            s = e["k_scale"].to(torch.float16)  # negative: the scale field
            caches.append((k, v, s))
        step_context.kv_caches = caches
        return step_context
