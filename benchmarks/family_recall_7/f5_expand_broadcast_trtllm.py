"""f5: unsqueeze+expand, broadcast_to and atleast_3d views of a whole layer before conversion."""
import torch


class ExpandAttention:
    def __init__(self, layer_idx, num_heads, num_kv_heads):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        wide = buf.unsqueeze(0).expand(2, *buf.shape).float()  # positive: f5 CL001 expanded view of the whole layer
        bcast = torch.broadcast_to(buf, (1, *buf.shape)).half()  # positive: f5 CL001 broadcast view
        flat = buf.flatten(0, 2)
        three = torch.atleast_3d(flat).bfloat16()  # positive: f5 CL001 atleast_3d of the whole flattened layer
        qx = q.unsqueeze(0).expand(2, *q.shape).float()  # negative: batch query
        ids = torch.broadcast_to(metadata.block_ids, (2, metadata.block_ids.numel())).long()  # negative: block ids
        return wide, bcast, three, qx, ids
