"""Cache helpers. to_compute is called with the engine's whole gpu_cache list."""
import torch


def to_compute(gpu_cache, dtype):
    out = []
    for k_cache, v_cache, *_ in gpu_cache:
        k_c = k_cache.to(dtype)  # positive: f7 CL001 whole key cache of every layer
        v_c = v_cache.to(dtype)  # positive: f7 CL001 whole value cache of every layer
        out.append((k_c, v_c))
    return out


def scales_to_float(scales):
    return [s.float() for s in scales]  # negative: scales/zeros, not the caches
