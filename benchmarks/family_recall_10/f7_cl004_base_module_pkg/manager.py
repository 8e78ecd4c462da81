import torch

from .base import DenseManagerBase


class FP8DenseManager(DenseManagerBase):
    compute_dtype = torch.bfloat16

    def block_lens(self, request_ids):
        return torch.tensor([len(self.get_cache_indices(r)) for r in request_ids]).to(torch.int32)  # negative: lengths
