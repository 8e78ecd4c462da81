import torch


def dequantize_pool(buf: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return buf.to(torch.float32).mul_(scale).to(dtype)  # positive: f7 CL001 ops.dequantize_pool receives the manager's whole layer buffer


def dequantize_rows(buf: torch.Tensor, rows: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return (buf[rows].to(torch.float32) * scale).to(dtype)  # negative: rows gathered first


def scale_to(scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return scale.to(dtype)  # negative: scale


def block_count(buf: torch.Tensor) -> int:
    return buf.shape[0]


def as_bytes(buf: torch.Tensor) -> torch.Tensor:
    return buf.view(torch.uint8)  # negative: reinterpret
