"""Dequantization helpers for int8 caches."""
import torch

from . import KVQuantConfig


def widen_layer(k_cache: torch.Tensor, v_cache: torch.Tensor, cfg: KVQuantConfig):
    k = k_cache.to(cfg.compute_dtype)  # positive: f7 CL001 whole int8 key cache, called per step from the agent
    v = v_cache.to(cfg.compute_dtype)  # positive: f7 CL001 whole int8 value cache, called per step from the agent
    return k, v


def widen_scales(scales_zeros: torch.Tensor, cfg: KVQuantConfig):
    return scales_zeros.to(cfg.compute_dtype)  # negative: scales and zeros
