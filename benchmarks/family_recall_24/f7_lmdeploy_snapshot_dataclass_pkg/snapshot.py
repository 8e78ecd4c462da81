from dataclasses import dataclass, field

import torch


@dataclass
class LayerSnapshot:
    cache: torch.Tensor
    dtype: torch.dtype = torch.float16
    dense: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self):
        self.dense = self.cache.to(self.dtype)  # positive: f7 CL001 whole key cache passed from the agent


@dataclass
class BlockSnapshot:
    cache: torch.Tensor
    blocks: torch.Tensor
    dtype: torch.dtype = torch.float16
    dense: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self):
        self.dense = self.cache[self.blocks].to(self.dtype)  # negative: blocks selected first
