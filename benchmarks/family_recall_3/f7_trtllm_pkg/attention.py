import torch

from .resource_manager import PagedKVManager


class ManagerAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, **kwargs):
        mgr: PagedKVManager = metadata.kv_cache_manager
        kv = mgr.layer_kv(self.layer_idx)
        k_cache, v_cache = kv.unbind(1)
        k_cache = k_cache.to(q.dtype)  # positive: f7 CL001 manager accessor defined in resource_manager.py
        v_cache = v_cache.to(q.dtype)  # positive: f7 CL001 manager accessor defined in resource_manager.py
        qf = q.to(k_cache.dtype)  # negative: batch q
        return k_cache, v_cache, qf
