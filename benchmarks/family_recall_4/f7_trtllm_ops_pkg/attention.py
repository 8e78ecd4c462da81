import torch

from f7_trtllm_ops_pkg.ops import into_fresh, upcast
from f7_trtllm_ops_pkg.resource import PoolManager


class OpsAttention:
    def __init__(self, layer_idx, manager: PoolManager):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, k, v, metadata, **kwargs):
        arena = upcast(self.manager.layer_pool(self.layer_idx), q.dtype)  # positive: f7 CL001 ops.py helper given the whole layer pool from resource.py
        qq = upcast(q, torch.float32)  # negative: batch q through the same helper
        blob = into_fresh(self.manager.layer_pool(self.layer_idx), torch.bfloat16)  # positive: f7 CL001 ops.py copy-cast given the whole layer pool
        kk = into_fresh(k, torch.bfloat16)  # negative: batch k
        slots = upcast(self.manager.seq_slots, torch.int64)  # negative: slot table
        return arena, qq, blob, kk, slots
