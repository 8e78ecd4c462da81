from typing import Optional

import torch


class KVCacheManagerCompat:
    def __init__(self, pools, kv_dtype):
        self._pools = pools
        self.dtype = kv_dtype

    def get_layer_view(self, layer_idx, dtype: Optional[torch.dtype] = None):
        buf = self._pools[layer_idx]
        if dtype is None or dtype == self.dtype:
            return buf
        return buf.to(dtype)  # positive: f6 CL004 the manager's accessor converts the whole layer when a dtype is asked for

    def get_layer_blocks(self, layer_idx, block_ids, dtype):
        return self._pools[layer_idx][block_ids].to(dtype)  # negative: blocks selected before the cast


class TrtllmGenNoFp8Attention:
    def forward(self, q, k, v, metadata, layer_idx):
        mgr = metadata.kv_cache_manager
        dense = mgr.get_layer_view(layer_idx, dtype=q.dtype)  # note: per-step caller of the CL004 accessor
        raw = mgr.get_layer_view(layer_idx)
        blocks = mgr.get_layer_blocks(layer_idx, metadata.block_ids, q.dtype)
        return dense, raw.to(q.device), blocks  # negative: .to(device)
