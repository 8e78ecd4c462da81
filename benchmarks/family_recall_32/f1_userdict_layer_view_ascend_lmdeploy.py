"""lmdeploy Ascend: a collections.UserDict of layer caches whose __getitem__ widens the layer."""
from collections import UserDict

import torch


class _AscendLayerView(UserDict):
    def __init__(self, gpu_cache, compute_dtype):
        super().__init__(enumerate(gpu_cache))
        self.compute_dtype = compute_dtype

    def __getitem__(self, layer_idx):
        k_cache, v_cache = self.data[layer_idx]
        return k_cache.to(self.compute_dtype), v_cache.to(self.compute_dtype)  # positive: f1 CL001 both whole layer caches on every lookup (one line)

    def first_blocks(self, layer_idx, block_offsets):
        k_cache, _ = self.data[layer_idx]
        return k_cache[block_offsets[:, 0]].to(self.compute_dtype)  # negative: first-block gather


class AscendAttentionImpl:
    def __init__(self, cache_engine):
        self.view = _AscendLayerView(cache_engine.gpu_cache, torch.float16)

    def forward(self, query, key, value, attn_metadata, layer_idx):
        if attn_metadata.is_decoding:
            k_cache, v_cache = self.view[layer_idx]
        else:
            k_cache = self.view.first_blocks(layer_idx, attn_metadata.block_offsets)
            v_cache = None
        query = query.to(torch.float16)  # negative: query
        return query, k_cache, v_cache
