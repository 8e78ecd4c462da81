"""A sliding-window hybrid pool defined in this file, with its own accessor names."""
from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class HybridWindowKVPool:
    def __init__(self, size, size_swa, dtype, head_num, head_dim, full_layer_ids, swa_layer_ids, device="cuda"):
        self.dtype = dtype
        self.full_layer_ids = list(full_layer_ids)
        self.swa_layer_ids = list(swa_layer_ids)
        self.layer_map = {lid: i for i, lid in enumerate(self.full_layer_ids)}
        self.swa_layer_map = {lid: i for i, lid in enumerate(self.swa_layer_ids)}
        self.full_k = [torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in self.full_layer_ids]
        self.full_v = [torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in self.full_layer_ids]
        self.swa_k = [torch.zeros((size_swa + 1, head_num, head_dim), dtype=dtype, device=device) for _ in self.swa_layer_ids]
        self.swa_v = [torch.zeros((size_swa + 1, head_num, head_dim), dtype=dtype, device=device) for _ in self.swa_layer_ids]
        self.full_to_swa_index_mapping: Optional[torch.Tensor] = None

    def window_keys(self, layer_id):
        return self.swa_k[self.swa_layer_map[layer_id]]

    def window_values(self, layer_id):
        return self.swa_v[self.swa_layer_map[layer_id]]

    def global_keys(self, layer_id):
        return self.full_k[self.layer_map[layer_id]]

    def translate_loc(self, loc):
        return self.full_to_swa_index_mapping[loc]


class WindowAwareBackend(AttentionBackend):
    def __init__(self, pool: HybridWindowKVPool, sliding_window):
        super().__init__()
        self.pool = pool
        self.sliding_window = sliding_window

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.sliding_window_size > 0:
            k_cache = self.pool.window_keys(layer.layer_id).to(q.dtype)  # positive: f6 CL001 SWA accessor defined in file
            v_cache = self.pool.window_values(layer.layer_id).to(q.dtype)  # positive: f6 CL001 SWA accessor defined in file
        else:
            k_cache = self.pool.global_keys(layer.layer_id).to(q.dtype)  # positive: f6 CL001 full-attention accessor defined in file
            v_cache = None
        return k_cache, v_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        swa_loc = self.pool.translate_loc(forward_batch.out_cache_loc)
        k_win = self.pool.window_keys(layer.layer_id)[swa_loc].to(q.dtype)  # negative: gather translated slots first
        mapping = self.pool.full_to_swa_index_mapping.to(torch.int64)  # negative: index mapping, not KV
        return k_win, mapping
