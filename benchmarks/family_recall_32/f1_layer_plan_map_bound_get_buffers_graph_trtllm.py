"""TRT-LLM decode CUDA graph: _LayerPlan objects built with map(_LayerPlan, repeat(mgr), range(n))."""
import itertools

import torch


class _LayerPlan:
    def __init__(self, mgr, layer_idx):
        self.get = mgr.get_buffers
        self.layer_idx = layer_idx

    def dense(self, dtype):
        return self.get(self.layer_idx).to(dtype)  # positive: f1 CL001 whole layer buffer, called in the graph body

    def blocks(self, ids, dtype):
        return self.get(self.layer_idx)[ids].to(dtype)  # negative: block gather


class DecodeGraphRunner:
    def __init__(self, mgr, num_layers, dtype=torch.float16):
        self.plans = list(map(_LayerPlan, itertools.repeat(mgr), range(num_layers)))
        self.dtype = dtype
        self.static = [torch.zeros_like(mgr.get_buffers(i), dtype=dtype) for i in range(num_layers)]  # negative: allocation in __init__

    def forward(self, metadata):
        # runs inside torch.cuda.graph(...) capture and on every replay
        for plan, out in zip(self.plans, self.static):
            if metadata.use_dense_fallback:
                out.copy_(plan.dense(self.dtype))
            else:
                out[:1].copy_(plan.blocks(metadata.block_ids[:1], self.dtype))
        return self.static
