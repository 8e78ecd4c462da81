"""vLLM spec decode: the EAGLE3 subclass hands the runner's caches to the base via super().__init__."""
import torch


class SpecProposerBase:
    def __init__(self, vllm_config, device, kv_source=None):
        self.kv_source = kv_source
        self.dtype = vllm_config.model_config.dtype
        self.device = device

    def _target_layer(self, idx: int) -> torch.Tensor:
        return self.kv_source[idx].to(self.dtype)  # positive: f2 CL001 whole target layer cache (kv_source set by the subclass)

    def _accepted_rows(self, idx: int, slot_mapping: torch.Tensor) -> torch.Tensor:
        return self.kv_source[idx].flatten(1, 2)[:, slot_mapping].to(self.dtype)  # negative: accepted slots gathered first


class Eagle3Proposer(SpecProposerBase):
    def __init__(self, vllm_config, device, runner):
        super().__init__(vllm_config, device, kv_source=runner.kv_caches)
        self.runner = runner

    def propose(self, target_hidden_states, common_attn_metadata, sampling_metadata):
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        layers = [self._target_layer(i) for i in self.runner.draft_reads_layers]
        return self._draft(hidden, layers, common_attn_metadata)

    def load_model(self, target_model):
        self.model = target_model.to(self.device)  # negative: module moved at load
