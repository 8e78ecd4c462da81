import time

import torch


class StepTimer:
    def __init__(self):
        self.totals = {}

    def run(self, name, fn, /, *args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        self.totals[name] = self.totals.get(name, 0.0) + time.perf_counter() - t0
        return out


class FallbackAttention:
    def __init__(self):
        self.timer = StepTimer()

    def forward(self, query, k_cache, v_cache, attn_metadata):
        k = self.timer.run("dequant_k", torch.Tensor.to, k_cache, torch.float16)  # positive: f4 CL001 whole key cache and dtype through *args
        v = self.timer.run("dequant_v", torch.Tensor.to, v_cache, dtype=query.dtype)  # positive: f4 CL001 dtype through **kwargs
        kb = self.timer.run("rows", torch.index_select, k_cache, 0, attn_metadata.block_offsets)  # negative: selection, no dtype
        kd = self.timer.run("move", torch.Tensor.to, k_cache, query.device)  # negative: device move
        return k, v, kb, kd
