"""vLLM EAGLE: the drafter reads the target model's attention layers through the compilation
config's static_forward_context; without an FP8 tree kernel it widens the shared layer."""
import torch


class EagleDrafter:
    def __init__(self, vllm_config, device):
        self.vllm_config = vllm_config
        self.shared_layer = "model.layers.0.self_attn.attn"
        self.compute_dtype = vllm_config.model_config.dtype

    def _target_layer(self):
        layers = self.vllm_config.compilation_config.static_forward_context
        return layers[self.shared_layer]

    def propose(self, target_hidden, block_table, slot_mapping):
        cache = self._target_layer().kv_cache[0]
        dense = cache.to(self.compute_dtype)  # positive: f1 CL001 the target layer's whole cache, every propose
        last = cache[:, block_table[:, 0]].to(self.compute_dtype)  # negative: first block of each request
        return self._draft(target_hidden, dense, last, slot_mapping)

    def _draft(self, hidden, dense, last, slot_mapping):
        return hidden


class SpecRunner:
    def execute_model(self, scheduler_output):
        out = self._run_target(scheduler_output)
        return self.drafter.propose(out.hidden, out.block_table, out.slot_mapping)
