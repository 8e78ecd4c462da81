import torch


class _DenseLatent:
    def __init__(self, kv_lora_rank: int = 512):
        self.kv_lora_rank = kv_lora_rank

    def __call__(self, kv_buffer: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return kv_buffer.to(dtype)  # positive: f7 CL001 whole latent buffer handed over by backend.forward_decode

    def nope(self, kv_buffer: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return kv_buffer[..., : self.kv_lora_rank].to(dtype)  # positive: f7 CL001 last-dim part keeps every slot


class _RowGather:
    def __call__(self, kv_buffer: torch.Tensor, loc: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return kv_buffer[loc].to(dtype)  # negative: rows first


dense_latent = _DenseLatent()
row_gather = _RowGather()
