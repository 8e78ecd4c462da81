import torch


def dequant_layer(pool, layer_id: int, dtype: torch.dtype) -> torch.Tensor:
    buf = pool.get_key_buffer(layer_id)
    return buf.to(dtype) * pool.k_scale_float  # positive: f7 CL001 helper reads the pool itself


def dequant_rows(pool, layer_id: int, loc: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return pool.get_key_buffer(layer_id)[loc].to(dtype)  # negative: gathered rows
