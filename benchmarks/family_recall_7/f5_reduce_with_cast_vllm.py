"""f5: per-step amax / norm of a whole layer cache computed after an upcast; scalar casts after reduce are not."""
import torch


class ScaleTrackingImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size
        self.amax_history = []

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        peak = torch.amax(kv_cache.float())  # positive: f5 CL001 whole cache upcast for an amax
        peak_v = kv_cache[1].to(torch.float32).abs().max()  # positive: f5 CL001 V of every block upcast
        norm = kv_cache.to(dtype=torch.float32).norm()  # positive: f5 CL001 whole cache upcast for a norm
        raw_peak = torch.amax(kv_cache.abs())  # negative: no conversion
        scalar = kv_cache.abs().max().float()  # negative: converts a scalar after the reduction
        self.amax_history.append(raw_peak.item())
        return peak, peak_v, norm, scalar
