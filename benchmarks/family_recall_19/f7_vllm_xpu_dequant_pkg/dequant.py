import torch


def dense_planes(kv_cache: torch.Tensor, dtype: torch.dtype, k_scale: float, v_scale: float):
    key_cache, value_cache = kv_cache[0], kv_cache[1]
    k = key_cache.to(dtype) * k_scale  # positive: f7 CL001 whole key plane from impl.forward
    v = value_cache.to(dtype) * v_scale  # positive: f7 CL001 whole value plane
    return k, v


def dense_blocks(kv_cache: torch.Tensor, block_ids: torch.Tensor, dtype: torch.dtype):
    return kv_cache[:, block_ids].to(dtype)  # negative: one sequence's blocks
