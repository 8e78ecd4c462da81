# Hybrid SWA pool delegating to a full pool and a sliding-window pool by a layer mapping.
from typing import Dict, List, Tuple

import torch


class _SimplePool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int, dtype: torch.dtype, device: str):
        self.size = size
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        return self.v_buffer[layer_id]


class HybridSWAPool:
    def __init__(self, full_pool: _SimplePool, swa_pool: _SimplePool, full_ids: List[int], swa_ids: List[int]):
        self.full_kv_pool = full_pool
        self.swa_kv_pool = swa_pool
        self.layers_mapping: Dict[int, Tuple[int, bool]] = {}
        for local, gid in enumerate(full_ids):
            self.layers_mapping[gid] = (local, False)
        for local, gid in enumerate(swa_ids):
            self.layers_mapping[gid] = (local, True)

    def _route(self, layer_id: int):
        local, is_swa = self.layers_mapping[layer_id]
        return (self.swa_kv_pool if is_swa else self.full_kv_pool), local

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        pool, local = self._route(layer_id)
        return pool.get_key_buffer(local)

    def window_values(self, layer_id: int) -> torch.Tensor:
        local, _ = self.layers_mapping[layer_id]
        return self.swa_kv_pool.get_value_buffer(local)

    def full_keys_fp32(self, layer_id: int) -> torch.Tensor:
        local, _ = self.layers_mapping[layer_id]
        return self.full_kv_pool.k_buffer[local].to(torch.float32)  # positive: f6 CL001 the hybrid pool converts a full-attention arena


class HybridBackend:
    def __init__(self, pool: HybridSWAPool, dtype: torch.dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 routed accessor returns a whole full or SWA arena
        w = self.pool.window_values(layer.layer_id).float()  # positive: f6 CL001 SWA value arena through a custom accessor
        swa_k = self.pool.swa_kv_pool.get_key_buffer(0).half()  # positive: f6 CL001 the inner SWA pool reached directly
        rows = self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered
        full32 = self.pool.full_keys_fp32(layer.layer_id)
        return k_all, w, swa_k, rows, full32
