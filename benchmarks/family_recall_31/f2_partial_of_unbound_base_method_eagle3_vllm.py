# vLLM EAGLE3 proposer: the drafter subclass binds the base proposer's dense target read with
# functools.partial(Base._dense_target, self) in __init__ and calls it in propose().
import functools

import torch


class EagleProposerBase:
    def __init__(self, vllm_config, runner):
        self.runner = runner
        self.dtype = vllm_config.model_config.dtype

    def _dense_target(self, layer_name: str):
        kv_cache = self.runner.kv_cache_by_layer[layer_name]
        return kv_cache.to(self.dtype)  # positive: f2 CL001 whole target layer cache (both planes), through the partial of the base function

    def _target_blocks(self, layer_name: str, block_table):
        kv_cache = self.runner.kv_cache_by_layer[layer_name]
        return kv_cache[:, block_table[:, 0]].to(self.dtype)  # negative: first block of each request ([2, num_blocks, ...])


class Eagle3Proposer(EagleProposerBase):
    def __init__(self, vllm_config, runner):
        super().__init__(vllm_config, runner)
        self._read_target = functools.partial(EagleProposerBase._dense_target, self)
        self.tap_layers = vllm_config.speculative_config.eagle3_tap_layer_names

    def propose(self, target_token_ids, target_hidden_states, common_attn_metadata):
        target_kv = [self._read_target(name) for name in self.tap_layers]
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        return self.model(target_token_ids, hidden, target_kv, common_attn_metadata)
