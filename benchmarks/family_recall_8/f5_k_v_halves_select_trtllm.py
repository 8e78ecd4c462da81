import torch


class HalvesAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        kh = buf.select(1, 0).to(q.dtype)  # positive: f5 CL001 K half of every block via select
        vh = buf.narrow(1, 1, 1).to(q.dtype)  # positive: f5 CL001 V half of every block via narrow
        kv = buf[:, 0, ...].float()  # positive: f5 CL001 K half with Ellipsis
        both = torch.cat([buf[:, 0], buf[:, 1]], dim=-1).half()  # positive: f5 CL001 cat of both whole halves
        first = buf[metadata.num_contexts].float()  # negative: one block picked by a step count
        return kh, vh, kv, both, first
