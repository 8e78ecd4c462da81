"""Packing helpers. pack_all and key_planes are called only with the registered caches."""
import torch


def pack_all(caches: dict, dtype: torch.dtype) -> dict:
    return {name: cache.to(dtype) for name, cache in caches.items()}  # positive: f7 CL001 every registered cache, whole (one finding)


def key_planes(caches: dict, dtype: torch.dtype) -> list:
    out = []
    for cache in caches.values():
        out.append(cache[0].to(dtype))  # positive: f7 CL001 key plane of every registered cache
    return out


def pack_blocks(cache: torch.Tensor, block_ids: torch.Tensor, dtype: torch.dtype):
    return cache[:, block_ids].to(dtype)  # negative: the saved blocks only
