import torch


def dequant_int8(k_cache: torch.Tensor, scales_zeros: torch.Tensor, dtype=torch.float16):
    scale, zero = scales_zeros.to(dtype).unbind(-1)  # negative: scales/zeros
    return (k_cache.to(dtype) - zero) * scale  # positive: f7 CL001 whole int8 cache from agent._async_model_forward


def dequant_fp8(k_cache: torch.Tensor, scales_zeros: torch.Tensor, dtype=torch.float16):
    return k_cache.to(dtype) * scales_zeros[..., 0]  # positive: f7 CL001 whole fp8 cache


def dequant_blocks(k_cache: torch.Tensor, block_offsets: torch.Tensor, dtype=torch.float16):
    return k_cache[block_offsets].to(dtype)  # negative: blocks first
