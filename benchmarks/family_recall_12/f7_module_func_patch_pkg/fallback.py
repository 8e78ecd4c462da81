import torch


def dequant_torch(cache, dtype):
    return cache.to(dtype)  # positive: f7 CL001 patched into ops.dequant, called with the layer's kv_cache


def scale_torch(scale, dtype):
    return scale.to(dtype)  # negative: scales


def describe():
    return "torch fallback"


def priority():
    return 0
