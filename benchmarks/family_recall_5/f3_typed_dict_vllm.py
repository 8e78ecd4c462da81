"""Per-layer caches kept in a TypedDict bundle."""

from typing import List, TypedDict

import torch


class CacheBundle(TypedDict):
    key_cache: List[torch.Tensor]
    value_cache: List[torch.Tensor]
    slot_mapping: torch.Tensor


class BundleRunner:
    def __init__(self, num_layers, num_blocks, block_size, heads, head_size, device):
        shape = (num_blocks, block_size, heads, head_size)
        self.bundle: CacheBundle = {
            "key_cache": [torch.zeros(shape, dtype=torch.float8_e4m3fn, device=device) for _ in range(num_layers)],
            "value_cache": [torch.zeros(shape, dtype=torch.float8_e4m3fn, device=device) for _ in range(num_layers)],
            "slot_mapping": torch.zeros(8192, dtype=torch.int64, device=device),
        }

    def execute_model(self, scheduler_output):
        out = []
        for i in scheduler_output.mirror_layers:
            kc = self.bundle["key_cache"][i]
            vc = self.bundle["value_cache"][i]
            out.append(kc.to(torch.bfloat16))  # positive: f3 CL001 whole key cache from a TypedDict list field
            out.append(vc.to(torch.bfloat16))  # positive: f3 CL001 whole value cache from the same bundle
        sm = self.bundle["slot_mapping"].to(torch.int32)  # negative: slot mapping
        n = scheduler_output.total_num_scheduled_tokens
        head = self.bundle["key_cache"][0][: n // 16].to(torch.bfloat16)  # negative: leading blocks covering this step's tokens only
        return out, sm, head
