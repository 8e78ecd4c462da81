import torch
from torch import nn


class PairedCacheModel(nn.Module):
    def __init__(self, k_caches, v_caches):
        super().__init__()
        self.kv_pairs = [(k, v) for k, v in zip(k_caches, v_caches)]

    def forward(self, hidden_states: torch.Tensor, attn_metadata, layer_idx: int):
        k_cache, v_cache = self.kv_pairs[layer_idx]
        k_cache = k_cache.float()  # positive: f3 CL001 k half of a (k, v) pair built in __init__
        v_cache = v_cache.float()  # positive: f3 CL001 v half of a (k, v) pair built in __init__
        hs = hidden_states.float()  # negative: hidden states
        return hs, k_cache, v_cache

    def decode(self, query, attn_metadata, layer_idx: int):
        pair = self.kv_pairs[layer_idx]
        return pair[0].to(query.dtype)  # positive: f3 CL001 indexed pair element is the whole k cache
