from typing import Protocol

import torch


class LatentSource(Protocol):
    def latent(self, layer_id: int) -> torch.Tensor: ...
