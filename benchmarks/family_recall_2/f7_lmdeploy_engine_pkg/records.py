from dataclasses import dataclass

import torch


@dataclass
class CacheRecord:
    layer_idx: int
    k_cache: torch.Tensor
    v_cache: torch.Tensor
