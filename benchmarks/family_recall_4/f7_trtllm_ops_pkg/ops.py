import torch


def upcast(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return t.to(dtype)  # note: generic, callers pass pools and batch tensors


def into_fresh(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    out = torch.empty(t.shape, dtype=dtype, device=t.device)
    out.copy_(t)  # note: generic copy-cast, labelled at the callers
    return out
