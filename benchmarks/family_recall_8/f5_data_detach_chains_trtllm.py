import torch


class DetachChainAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        a = buf.data.to(q.dtype)  # positive: f5 CL001 .data of the whole layer
        b = buf.detach().half()  # positive: f5 CL001 .detach() keeps the whole layer
        c = buf.detach().data.clone().float()  # positive: f5 CL001 detach/data/clone chain
        d = buf.requires_grad_(False).detach().to(dtype=torch.bfloat16)  # positive: f5 CL001 chain ending in dtype keyword
        e = buf.detach().to(q.device)  # negative: device move
        f = buf.data[metadata.block_ids].float()  # negative: gathered blocks
        return a, b, c, d, e, f
