"""f3: K and V layer lists merged with [*ks, *vs] and with sum([...], []); indexed per step."""
import torch


class TwoListManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.k_pools = [torch.zeros((blocks, tpb, heads, dim), dtype=dtype, device="cuda") for _ in range(num_layers)]
        self.v_pools = [torch.zeros((blocks, tpb, heads, dim), dtype=dtype, device="cuda") for _ in range(num_layers)]
        self.num_layers = num_layers


class StarAttention:
    def __init__(self, layer_idx, mgr: TwoListManager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, k, v, metadata):
        both = [*self.mgr.k_pools, *self.mgr.v_pools]
        kc = both[self.layer_idx].to(q.dtype)  # positive: f3 CL001 star-merged list element
        merged = sum([self.mgr.k_pools, self.mgr.v_pools], [])
        vc = merged[self.mgr.num_layers + self.layer_idx].half()  # positive: f3 CL001 sum()-concatenated lists
        ids = [*metadata.block_ids]
        head = both[self.layer_idx][ids[0]].to(q.dtype)  # negative: one request's blocks
        scale = [*metadata.k_scales][0].float()  # negative: a scale
        return kc, vc, head, scale
