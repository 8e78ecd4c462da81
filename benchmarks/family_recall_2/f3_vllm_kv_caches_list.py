# vLLM-style runners and connectors that hold kv_caches as dicts/lists keyed by layer name.
from typing import Dict, List

import torch


class DebugModelRunnerMixin:
    def __init__(self, vllm_config, device: torch.device):
        self.device = device
        self.kv_caches: List[torch.Tensor] = []
        self.layer_names: List[str] = []

    def initialize_kv_cache_tensors(self, kv_cache_config) -> Dict[str, torch.Tensor]:
        kv_caches: Dict[str, torch.Tensor] = {}
        for spec in kv_cache_config.kv_cache_tensors:
            tensor = torch.zeros(spec.size, dtype=torch.int8, device=self.device)
            for layer_name in spec.shared_by:
                kv_caches[layer_name] = tensor
        return kv_caches

    def dump_fp32(self) -> Dict[str, torch.Tensor]:
        out = {}
        for layer_name, kv in zip(self.layer_names, self.kv_caches):
            out[layer_name] = kv.to(torch.float32)  # positive: f3 CL001 every entry of self.kv_caches is a whole layer cache
        return out

    def checksum(self, kv_caches: Dict[str, torch.Tensor], layer_name: str) -> torch.Tensor:
        return kv_caches[layer_name].to(torch.bfloat16).sum()  # positive: f3 CL001 dict of layer caches indexed by name

    def stage_to_host(self, kv_caches: Dict[str, torch.Tensor], layer_name: str) -> torch.Tensor:
        return kv_caches[layer_name].to(self.device)  # negative: device move

    def read_blocks(self, layer_name: str, block_ids: torch.Tensor) -> torch.Tensor:
        idx = self.layer_names.index(layer_name)
        return self.kv_caches[idx][:, block_ids].to(torch.float32)  # negative: blocks selected on dim 1 of [2, num_blocks, ...] first
