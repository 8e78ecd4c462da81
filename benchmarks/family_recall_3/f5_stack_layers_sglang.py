import torch


class StackAllLayers:
    """Snapshots every layer every step (a debug/eagle draft helper)."""

    def __init__(self, pool):
        self.pool = pool

    def run(self, forward_batch):
        all_k = torch.stack(self.pool.k_buffer).float()  # positive: f5 CL001 stack of every layer's whole buffer
        all_v = torch.stack([self.pool.get_value_buffer(i) for i in range(self.pool.layer_num)], dim=0)
        all_v = all_v.to(torch.float32)  # positive: f5 CL001 stacked whole value pools
        return all_k, all_v
