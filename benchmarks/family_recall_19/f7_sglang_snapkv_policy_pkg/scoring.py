import torch


def score_layer(k_buf: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    keys = k_buf.to(torch.float32)  # positive: f7 CL001 whole key pool handed in by backend.forward_decode
    return torch.einsum("bhd,nhd->bn", q.float(), keys)


def score_rows(k_buf: torch.Tensor, loc: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    keys = k_buf[loc].to(torch.float32)  # negative: rows
    return torch.einsum("bhd,nhd->bn", q.float(), keys)
