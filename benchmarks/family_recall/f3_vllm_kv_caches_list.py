# SPDX-License-Identifier: Apache-2.0
"""vLLM model-runner side: list of per-layer caches bound to attention layers, read back per layer."""
from dataclasses import dataclass

import torch

from vllm.forward_context import get_forward_context


@dataclass
class DebugCacheSnapshot:
    layer_names: list
    dtypes: dict


class CacheInspector:
    def __init__(self, kv_caches: dict[str, torch.Tensor], runner_kv_caches: list[torch.Tensor]):
        self.by_name = kv_caches
        self.by_index = runner_kv_caches

    def layer_float(self, layer_name: str) -> torch.Tensor:
        return self.by_name[layer_name].float()  # positive: f3 CL001 dict of layer-name -> cache

    def layer_halves(self, idx: int):
        key_cache, value_cache = self.by_index[idx].unbind(0)
        return key_cache.to(torch.bfloat16), value_cache  # positive: f3 CL001 unbound half of a list entry

    def all_layers_bf16(self):
        return [c.to(torch.bfloat16) for c in self.by_index]  # positive: f3 CL001 every layer

    def snapshot(self) -> DebugCacheSnapshot:
        return DebugCacheSnapshot(list(self.by_name), {n: c.dtype for n, c in self.by_name.items()})  # negative: only dtypes

    def from_forward_context(self, layer_name: str, virtual_engine: int = 0):
        attn = get_forward_context().no_compile_layers[layer_name]
        cache = attn.kv_cache[virtual_engine]
        return cache.to(torch.float32)  # positive: f3 CL001 per-virtual-engine cache list of the layer

    def block_rows(self, idx: int, block_ids: torch.Tensor):
        return self.by_index[idx][:, block_ids].to(torch.bfloat16)  # negative: gathers blocks
