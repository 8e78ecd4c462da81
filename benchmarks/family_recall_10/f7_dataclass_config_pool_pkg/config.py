from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class KVConfig:
    size: int
    layers: int
    max_reqs: int = 256
    store_dtype: torch.dtype = torch.float8_e4m3fn
    compute_dtype: torch.dtype = torch.bfloat16
