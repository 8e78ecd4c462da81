import torch


class KVMomentTracker:
    """Running first/second moments of each layer's keys (EMA), updated per step."""

    def __init__(self, pool, num_layers, head_num, head_dim, device):
        self.pool = pool
        self.mean = torch.zeros(num_layers, head_num, head_dim, device=device)
        self.sq = torch.zeros_like(self.mean)
        self.init_snapshot = pool.get_key_buffer(0).float()  # negative: setup (__init__)

    def forward(self, layer_id, forward_batch):
        k = self.pool.get_key_buffer(layer_id)
        kf = k.to(self.mean.dtype)  # positive: f5 CL001 whole key buffer for the EMA
        self.mean[layer_id].lerp_(kf.mean(0), 0.01)
        self.sq[layer_id] = torch.addcmul(self.sq[layer_id] * 0.99, kf.mean(0), kf.mean(0), value=0.01)
        newest = k[forward_batch.out_cache_loc].to(self.mean.dtype)  # negative: rows first
        m = torch.lerp(self.mean[layer_id], newest.mean(0), 0.5)
        return m, self.sq[layer_id]
