"""Per-step attention path (fp8 scale beside cache trtllm).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class Fp8KVDequantFallback:
    def __init__(self, kv_cache_manager):
        self.mgr = kv_cache_manager

    def forward(self, q, k, v, attn_metadata, layer_idx):
        buf = self.mgr.get_buffers(layer_idx)
        scale = self.mgr.kv_scales[layer_idx]
        scale_f = scale.to(torch.float32)  # negative: scale tensor beside the cache
        inv = (1.0 / scale).to(q.dtype)  # negative: scale arithmetic
        dq = buf.to(torch.float32) * scale_f  # positive: f5 CL001 whole layer dequantized
        amax_hist = self.mgr.amax_history[layer_idx].to(torch.float32)  # negative: amax history
        return dq, inv, amax_hist
