import torch


def dense_latent(buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return buf.to(dtype)  # positive: f7 CL001 the backend's per-step method (local import) hands the whole latent layer here


def dense_rope(buf: torch.Tensor, kv_lora_rank: int, dtype: torch.dtype) -> torch.Tensor:
    return buf[..., kv_lora_rank:].to(dtype)  # positive: f7 CL001 last-dim rope part of the whole layer, every slot kept


def prefix_rows(buf: torch.Tensor, loc: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return buf[loc].to(dtype)  # negative: rows selected before the cast
