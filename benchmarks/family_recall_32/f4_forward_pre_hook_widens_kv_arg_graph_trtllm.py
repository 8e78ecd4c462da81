"""TRT-LLM SM86 decode graph: a forward pre-hook on the attention module widens the kv buffer argument."""
import torch
from torch import nn


def _dense_kv_pre_hook(module, args):
    q, kv, metadata = args
    return q, kv.to(module.compute_dtype), metadata  # positive: f4 CL001 whole layer buffer, run by torch before every forward


class _AttnCore(nn.Module):
    def __init__(self, compute_dtype=torch.float16):
        super().__init__()
        self.compute_dtype = compute_dtype

    def forward(self, q, kv, metadata):
        return q, kv


class Sm86DecodeGraphLayer(nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.core = _AttnCore()
        self.core.register_forward_pre_hook(_dense_kv_pre_hook)

    def forward(self, q, metadata):
        # body captured by the decode CUDA graph and replayed every step
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        scale = metadata.kv_scale_quant_orig.to(torch.float16)  # negative: scale
        return self.core(q, buf, metadata), scale
