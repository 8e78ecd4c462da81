"""f3: every layer cache converted inside a comprehension / generator in a per-step method."""
import torch


class CastEachWorker:
    def __init__(self, vllm_config):
        self.kv_caches: list[torch.Tensor] = []
        self.dtype = torch.bfloat16

    def initialize_cache(self, num_gpu_blocks, num_layers):
        self.kv_caches = [
            torch.empty((2, num_gpu_blocks, 16, 8, 128), dtype=torch.float8_e4m3fn, device="cuda")
            for _ in range(num_layers)
        ]
        self.warm = [c.to(self.dtype) for c in self.kv_caches[:1]]  # negative: one-time warm-up at init

    def execute_model(self, scheduler_output):
        dense = [c.to(self.dtype) for c in self.kv_caches]  # positive: f3 CL001 each whole layer in a list comprehension
        peak = max(c.float().abs().max() for c in self.kv_caches)  # positive: f3 CL001 each whole layer in a generator
        counts = [c.shape[1] for c in self.kv_caches]  # negative: shapes
        blocks = scheduler_output.block_ids
        used = [c[:, blocks].to(self.dtype) for c in self.kv_caches]  # negative: blocks of this step
        return dense, peak, counts, used
