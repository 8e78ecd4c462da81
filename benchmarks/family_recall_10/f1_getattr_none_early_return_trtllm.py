"""An optional manager fetched with getattr(..., None) and an early return when absent."""
import torch


class OptionalManagerAttention:
    def __init__(self, layer_idx, head_dim):
        self.layer_idx = layer_idx
        self.head_dim = head_dim

    def forward(self, q, k, v, attn_metadata):
        mgr = getattr(attn_metadata, "kv_cache_manager", None)
        if mgr is None:
            return torch.cat([k, v], -1).to(q.dtype)  # negative: this step's keys and values only
        pool = mgr.get_buffers(self.layer_idx)
        if pool.dtype == q.dtype:
            return pool
        return pool.to(q.dtype)  # positive: f1 CL001 manager past the None check, whole layer

    def update(self, attn_metadata, k):
        mgr = getattr(attn_metadata, "kv_cache_manager", None)
        if not mgr:
            return None
        lens = attn_metadata.seq_lens
        return lens.to(torch.int64)  # negative: lengths
