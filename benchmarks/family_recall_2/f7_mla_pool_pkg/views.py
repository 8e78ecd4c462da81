import torch


def nope_of(buf: torch.Tensor, kv_lora_rank: int) -> torch.Tensor:
    return buf[..., :kv_lora_rank]


def head_rows(buf: torch.Tensor, loc: torch.Tensor) -> torch.Tensor:
    return buf[loc]
