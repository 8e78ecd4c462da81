import torch
import torch.nn.functional as F


class KVProbeHead(torch.nn.Module):
    """Linear probe over every cached value token (interpretability run inside generation)."""

    def __init__(self, weight, kv_cache_manager):
        super().__init__()
        self.weight = weight
        self.kv_cache_manager = kv_cache_manager

    def forward(self, layer_idx, metadata):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        values = buf[:, 1].flatten(-2)
        all_logits = F.linear(values.to(self.weight.dtype), self.weight)  # positive: f5 CL001 the whole value plane, heads flattened, converted for the projection
        used = F.linear(values[metadata.block_ids].to(self.weight.dtype), self.weight)  # negative: blocks selected before the cast
        w = self.weight.to(values.device)  # negative: .to(device) of a weight
        return all_logits, used, w
