import torch


def _fp8_layer(buf: torch.Tensor) -> torch.Tensor:
    return buf.to(torch.bfloat16)  # positive: f7 CL001 whole layer buffer converted, looked up by dtype from graph_runner.replay


def _int8_rows(buf: torch.Tensor, rows: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return buf[rows].to(torch.bfloat16) * scale  # negative: rows gathered first


def _identity(buf: torch.Tensor) -> torch.Tensor:
    return buf


CONVERTERS = {
    torch.float8_e4m3fn: _fp8_layer,
    torch.bfloat16: _identity,
}
