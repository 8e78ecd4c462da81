import torch

from .registry import register


@register("fp8_full")
def widen_full(cache, dtype):
    return cache.to(dtype)  # positive: f7 CL001 whole cache from the agent via the registry


@register("fp8_rows")
def widen_rows(cache, dtype, rows):
    return cache[rows].to(dtype)  # negative: rows selected first
