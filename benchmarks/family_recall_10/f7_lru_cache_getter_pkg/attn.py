import torch

from .state import get_pool


class CachedPoolBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = get_pool().layers[layer.layer_id]
        up = buf.to(q.dtype)  # positive: f7 CL001 pool from an lru_cache'd getter in state.py
        rows = buf[forward_batch.out_cache_loc].to(q.dtype)  # negative: gather-then-cast
        free = get_pool().free_slots[:8].to(torch.int32)  # negative: free slot ids
        return up, rows, free
