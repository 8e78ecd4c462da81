"""f4: attribute and method names built with f-strings / concatenation and read with getattr."""
import torch


class HalvesManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.k_pools = [torch.empty((blocks, tpb, heads, dim), dtype=dtype, device="cuda") for _ in range(num_layers)]
        self.v_pools = [torch.empty((blocks, tpb, heads, dim), dtype=dtype, device="cuda") for _ in range(num_layers)]

    def get_buffers(self, layer_idx):
        return torch.stack([self.k_pools[layer_idx], self.v_pools[layer_idx]], dim=1)


class FStringAttention:
    def __init__(self, layer_idx, mgr: HalvesManager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, k, v, metadata):
        out = {}
        for half in ("k", "v"):
            out[half] = getattr(self.mgr, f"{half}_pools")[self.layer_idx].to(q.dtype)  # positive: f4 CL001 f-string attribute name
        name = "get_" + "buffers"
        dense = getattr(self.mgr, name)(self.layer_idx).float()  # positive: f4 CL001 concatenated method name
        ids = getattr(metadata, f"block_{'ids'}").long()  # negative: block ids
        moved = getattr(self.mgr, name)(self.layer_idx).to("cuda")  # negative: device only
        return out, dense, ids, moved
