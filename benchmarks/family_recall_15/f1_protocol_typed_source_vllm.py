from typing import Protocol

import torch


class KVSource(Protocol):
    kv_caches: list[torch.Tensor]

    def layer_index(self, name: str) -> int: ...


def dense_layer(src: KVSource, name: str, dtype: torch.dtype) -> torch.Tensor:
    cache = src.kv_caches[src.layer_index(name)]
    return cache.to(dtype)  # positive: f1 CL001 every caller passes the runner as the Protocol-typed source


def layer_rows(src: KVSource, name: str, slots: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    cache = src.kv_caches[src.layer_index(name)]
    return cache.flatten(0, 1)[slots].to(dtype)  # negative: slot gather


class TorchSDPAImpl:
    def __init__(self, runner, layer_name):
        self.runner = runner
        self.layer_name = layer_name

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_prefills:
            kv = layer_rows(self.runner, self.layer_name, attn_metadata.slot_mapping, query.dtype)
        else:
            kv = dense_layer(self.runner, self.layer_name, query.dtype)
        return torch.nn.functional.scaled_dot_product_attention(query, kv[0], kv[1])
