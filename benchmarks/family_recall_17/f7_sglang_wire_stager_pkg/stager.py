"""Staging helpers for the layer-wise KV sender."""
import torch


def stage_layer(buf: torch.Tensor, wire_dtype: torch.dtype) -> torch.Tensor:
    staged = buf.to(wire_dtype)  # positive: f7 CL001 its only caller passes a whole pool layer per extend step
    return staged.contiguous()


def stage_rows(buf: torch.Tensor, rows: torch.Tensor, wire_dtype: torch.dtype) -> torch.Tensor:
    return buf[rows].to(wire_dtype)  # negative: gathered rows


def stage_scale(scale: torch.Tensor, wire_dtype: torch.dtype) -> torch.Tensor:
    return scale.to(wire_dtype)  # negative: per-layer scale
