from typing import List, Tuple

import torch
from torch import nn


class InternLM2Model(nn.Module):
    def __init__(self, config, dtype):
        super().__init__()
        self.layers = nn.ModuleList()
        self.dtype = dtype

    def forward(self, input_ids, position_ids, past_key_values: List[Tuple[torch.Tensor, torch.Tensor]], attn_metadata):
        hidden = self.embed_tokens(input_ids)
        for idx, (k_cache, v_cache) in enumerate(past_key_values):
            if k_cache.dtype == torch.uint8:
                k_cache = k_cache.half()  # positive: f3 CL001 layer caches unpacked from the past_key_values list
                v_cache = v_cache.half()  # positive: f3 CL001 layer caches unpacked from the past_key_values list
            hidden = self.layers[idx](hidden, position_ids, (k_cache, v_cache), attn_metadata)
        offsets = attn_metadata.block_offsets.to(torch.int32)  # negative: block offsets
        pos = position_ids.to(self.dtype)  # negative: positions
        return self.norm(hidden), offsets, pos
