from dataclasses import dataclass

import torch


@dataclass
class _ReplayInputs:
    kv_cache: torch.Tensor
    block_table: torch.Tensor
    seq_lens: torch.Tensor


class CUDAGraphWrapper:
    """Full-graph replay for a backend without FP8 decode kernels."""

    def __init__(self, runnable, compute_dtype):
        self.runnable = runnable
        self.compute_dtype = compute_dtype
        self.static_kv = None

    def capture(self, inputs: _ReplayInputs):
        self.static_kv = torch.empty_like(inputs.kv_cache, dtype=self.compute_dtype)  # negative: capture-time allocation, setup
        self.static_tables = inputs.block_table.clone()

    def __call__(self, inputs: _ReplayInputs):
        self.static_kv.copy_(inputs.kv_cache.to(self.compute_dtype))  # positive: f1 CL001 whole layer cache carried by the replay record, widened per replay
        self.static_tables.copy_(inputs.block_table.to(torch.int32))  # negative: block table, not KV
        lens = inputs.seq_lens.to(inputs.kv_cache.device)  # negative: .to(device)
        return self.runnable(self.static_kv, self.static_tables, lens)
