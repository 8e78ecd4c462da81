"""A flat [k0, v0, k1, v1, ...] list regrouped into pairs with zip(*[iter(flat)] * 2)."""
import torch


class FlatPairManager:
    def __init__(self, layers, blocks):
        self.flat = []
        for _ in range(layers):
            self.flat.append(torch.empty(blocks, 64, 8, 128, dtype=torch.float8_e4m3fn))
            self.flat.append(torch.empty(blocks, 64, 8, 128, dtype=torch.float8_e4m3fn))
        self.block_offsets = torch.zeros(blocks, dtype=torch.int32)


class PairTrickAttention:
    def __init__(self, manager: FlatPairManager, layer_idx):
        self.manager = manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        it = iter(self.manager.flat)
        pairs = list(zip(*[it] * 2))
        k_pool, v_pool = pairs[self.layer_idx]
        kk = k_pool.to(q.dtype)  # positive: f3 CL001 K pool regrouped with the zip-iter trick
        vv = v_pool.to(q.dtype)  # positive: f3 CL001 V pool regrouped with the zip-iter trick
        offs = self.manager.block_offsets.to(torch.int64)  # negative: block offsets
        return kk, vv, offs
