"""lmdeploy: a KV quant config record carried from the agent into the dequant module."""
from dataclasses import dataclass

import torch


@dataclass
class KVQuantConfig:
    quant_policy: int = 8
    compute_dtype: torch.dtype = torch.float16
    has_int8_kernel: bool = False
