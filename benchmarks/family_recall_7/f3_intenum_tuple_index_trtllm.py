"""f3: a (K, V) tuple indexed with an IntEnum member, and a dict keyed by it."""
import enum

import torch


class Half(enum.IntEnum):
    K = 0
    V = 1


class EnumKVManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.layers = [
            (
                torch.empty((blocks, tpb, heads, dim), dtype=dtype, device="cuda"),
                torch.empty((blocks, tpb, heads, dim), dtype=dtype, device="cuda"),
            )
            for _ in range(num_layers)
        ]

    def halves(self, layer_idx):
        return self.layers[layer_idx]


class EnumAttention:
    def __init__(self, layer_idx, mgr: EnumKVManager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, k, v, metadata):
        pair = self.mgr.halves(self.layer_idx)
        k_all = pair[Half.K].to(q.dtype)  # positive: f3 CL001 IntEnum index picks the whole K cache
        by_half = {h: pair[h] for h in Half}
        v_all = by_half[Half.V].bfloat16()  # positive: f3 CL001 dict keyed by enum
        v_used = by_half[Half.V][metadata.block_ids].bfloat16()  # negative: the step's blocks
        which = torch.tensor([int(Half.K)], dtype=torch.int64)  # negative: a tiny index tensor
        return k_all, v_all, v_used, which
