from dataclasses import dataclass

import torch


@dataclass
class StepContext:
    past_key_values: list
    block_offsets: torch.Tensor
    q_seqlens: torch.Tensor

    def layer_cache(self, layer_idx: int):
        return self.past_key_values[layer_idx]
