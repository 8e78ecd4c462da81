"""Conversions used by the runner."""
import torch


def densify(cache: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return cache.to(dtype)  # positive: f7 CL001 the runner passes every registered cache, whole, each step


def value_planes(cache: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return cache[1].to(dtype)  # positive: f7 CL001 value plane of every block of a registered cache


def densify_blocks(cache: torch.Tensor, blocks: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return cache[:, blocks].to(dtype)  # negative: scheduled blocks only


def key_plane_same_dtype(cache: torch.Tensor) -> torch.Tensor:
    return cache[0].to(dtype=cache.dtype)  # negative: same dtype
