"""Attention module using the manager class from manager.py."""
import torch

from f7_trtllm_pkg.manager import SimpleKVCacheManager


class TorchRefAttention:
    def __init__(self, layer_idx, num_heads, head_dim, manager: SimpleKVCacheManager):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.manager = manager

    def forward(self, q, k, v, request_ids):
        buf = self.manager.get_buffers(self.layer_idx)
        k_cache = buf[:, 0].to(q.dtype)  # positive: f7 CL001 K half of a manager buffer from another module
        v_cache = buf.select(1, 1).to(q.dtype)  # positive: f7 CL001 select of V half of a manager buffer
        ids = torch.tensor(sum(self.manager.get_batch_cache_indices(request_ids), []), device=q.device)
        live = buf[ids].to(q.dtype)  # negative: block gather first
        return k_cache, v_cache, live
