import torch


class TopKTokenSelector:
    """Selects the strongest cached tokens of a layer by key norm."""

    def __init__(self, kv_cache_manager, k: int):
        self.kv_cache_manager = kv_cache_manager
        self.k = k

    def _forward_step(self, scheduled_requests, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        keys = buf[:, 0].flatten(0, 1)
        norms = keys.float().norm(dim=-1).amax(-1)  # positive: f5 CL001 whole key plane cast before top-k
        idx = norms.topk(self.k).indices
        picked = keys[idx].float()  # negative: top-k rows gathered first
        vals, _ = torch.sort(keys.view(torch.int8).abs(), dim=0)  # negative: reinterpret, no dtype conversion
        return idx, picked, vals
