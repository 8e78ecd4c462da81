"""Readers of the target pool; only the names in __all__ are exported by a star import."""
import torch

__all__ = ["target_layer", "target_rows"]


def target_layer(pool, layer_id: int, dtype: torch.dtype) -> torch.Tensor:
    return pool.get_key_buffer(layer_id).to(dtype)  # positive: f7 CL001 whole target key buffer, reached from draft_backend.forward_extend


def target_rows(pool, layer_id: int, loc: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return pool.get_key_buffer(layer_id)[loc].to(dtype)  # negative: rows gathered first


def _scale(layer, dtype):
    return torch.tensor(layer.k_scale_float or 1.0).to(dtype)  # negative: a scale
