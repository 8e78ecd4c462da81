"""The kv cache list is set in a grandparent __init__ and read in a grandchild."""

import torch


class RunnerBase:
    def __init__(self, vllm_config, device):
        self.device = device
        self.kv_caches = []
        self.positions = torch.zeros(8192, dtype=torch.int64, device=device)

    def initialize_kv_cache_tensors(self, kv_cache_config):
        for spec in kv_cache_config.kv_cache_tensors:
            self.kv_caches.append(torch.zeros(spec.size // 2, dtype=torch.float8_e4m3fn, device=self.device))


class GPURunnerMid(RunnerBase):
    def __init__(self, vllm_config, device):
        super().__init__(vllm_config, device)
        self.input_ids = torch.zeros(8192, dtype=torch.int32, device=device)


class DebugRunner(GPURunnerMid):
    def execute_model(self, scheduler_output):
        stats = []
        for i in scheduler_output.debug_layers:
            lay = self.kv_caches[i]
            stats.append(lay.to(torch.bfloat16).abs().amax())  # positive: f2 CL001 kv_caches allocated by the grandparent, whole layer cast each step
        ids = self.input_ids.to(torch.int64)  # negative: input id buffer of the middle class
        pos = self.positions[: scheduler_output.total_num_scheduled_tokens].to(torch.int32)  # negative: window of the step's positions
        return stats, ids, pos

    def _load_time_check(self):
        return [c.to(torch.bfloat16).isnan().any() for c in self.kv_caches]  # note: not called from a per-step method
