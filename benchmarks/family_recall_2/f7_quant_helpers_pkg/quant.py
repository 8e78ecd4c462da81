import torch

from sglang.srt.layers.quantization.kv_cache_quant import dequantize_kv_tensor


def upcast_cache(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return t.to(dtype)  # note: generic helper; attributed to the pool-passing call sites in backend.py


def dequant_layer(k_buf: torch.Tensor, k_scale: torch.Tensor, layer_id: int) -> torch.Tensor:
    return dequantize_kv_tensor(k_buf, k_scale, layer_id)  # note: generic helper; attributed to the pool-passing call sites in backend.py


def dequant_rows(k_buf: torch.Tensor, k_scale: torch.Tensor, loc: torch.Tensor, layer_id: int) -> torch.Tensor:
    return dequantize_kv_tensor(k_buf[loc], k_scale[loc], layer_id)  # negative: dequantizes gathered rows only
