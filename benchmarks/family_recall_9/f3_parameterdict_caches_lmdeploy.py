"""Caches kept as frozen nn.Parameters in an nn.ParameterDict keyed by name."""
import torch
from torch import nn


class ParamDictCache(nn.Module):
    def __init__(self, num_layers, num_blocks, block_size, heads=8, dim=128):
        super().__init__()
        shape = (num_blocks, block_size, heads, dim)
        self.caches = nn.ParameterDict(
            {f"k{i}": nn.Parameter(torch.empty(shape, dtype=torch.int8), requires_grad=False) for i in range(num_layers)}
            | {f"v{i}": nn.Parameter(torch.empty(shape, dtype=torch.int8), requires_grad=False) for i in range(num_layers)}
        )
        self.scales = nn.ParameterDict({f"s{i}": nn.Parameter(torch.ones(num_blocks, 2)) for i in range(num_layers)})


class ParamDictAttention:
    def __init__(self, store: ParamDictCache, layer_idx):
        self.store = store
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kc = self.store.caches[f"k{self.layer_idx}"].float()  # positive: f3 CL001 int8 K cache from the ParameterDict
        vc = self.store.caches[f"v{self.layer_idx}"].detach().to(query.dtype)  # positive: f3 CL001 int8 V cache, detached
        sc = self.store.scales[f"s{self.layer_idx}"].to(query.dtype)  # negative: per-block scales
        return query, kc, vc, sc
