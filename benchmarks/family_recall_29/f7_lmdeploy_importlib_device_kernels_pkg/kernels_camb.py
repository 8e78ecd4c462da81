"""Cambricon MLU kernels: the decode op has no int8 KV path, so layers are widened."""
import torch


def dense_layer(k_cache: torch.Tensor, v_cache: torch.Tensor, dtype: torch.dtype):
    return k_cache.to(dtype), v_cache.to(dtype)  # positive: f7 CL001 both whole caches of a layer, called per step from agent.py


def paged_layer(k_cache, v_cache, block_offsets, dtype):
    blocks = block_offsets.flatten()
    return k_cache[blocks].to(dtype), v_cache[blocks].to(dtype)  # negative: blocks gathered first


def scale_layer(k_scale: torch.Tensor, dtype: torch.dtype):
    return k_scale.to(dtype)  # negative: a scale
