import torch


class GPUModelRunner:
    def __init__(self, vllm_config, device):
        self.device = device
        self.kv_caches: list[torch.Tensor] = []
        self.dump_kv_stats = vllm_config.observability_config.collect_detailed_traces

    def initialize_kv_cache(self, kv_cache_config):
        for spec in kv_cache_config.kv_cache_tensors:
            self.kv_caches.append(torch.zeros(spec.size, dtype=torch.int8, device=self.device))

    def _kv_stats(self):
        out = []
        for i, cache in enumerate(self.kv_caches):
            out.append(cache.float().abs().amax())  # positive: f3 CL001 each registered cache from the runner list, whole
        return out

    @torch.inference_mode()
    def execute_model(self, scheduler_output, intermediate_tensors=None):
        n = scheduler_output.total_num_scheduled_tokens
        ids = self.input_ids.gpu[:n].to(torch.int64)  # negative: the step's input ids
        hidden = self.model(input_ids=ids, positions=self.positions.gpu[:n])
        if self.dump_kv_stats:
            self.last_stats = self._kv_stats()
        return hidden
