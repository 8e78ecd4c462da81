import torch


def cast_like(t: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    return t.to(ref.dtype)  # note: generic, callers pass pools and batch tensors


def to_compute(t: torch.Tensor, dtype=torch.bfloat16) -> torch.Tensor:
    if t.dtype == dtype:
        return t
    return t.to(dtype)  # note: generic
