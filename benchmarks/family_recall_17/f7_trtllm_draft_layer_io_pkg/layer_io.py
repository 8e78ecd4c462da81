"""Layer reads for the draft model's reference attention."""
import torch


class LayerIO:
    def __init__(self, compute_dtype: torch.dtype):
        self.compute_dtype = compute_dtype

    def dense(self, buf: torch.Tensor) -> torch.Tensor:
        return buf.to(self.compute_dtype)  # positive: f7 CL001 the drafter passes each whole draft layer per step

    def blocks(self, buf: torch.Tensor, block_ids: torch.Tensor) -> torch.Tensor:
        return buf[block_ids].to(self.compute_dtype)  # negative: gathered blocks

    def key_plane(self, buf: torch.Tensor) -> torch.Tensor:
        return buf[:, 0].to(self.compute_dtype)  # positive: f7 CL001 key plane of every block of the target layer
