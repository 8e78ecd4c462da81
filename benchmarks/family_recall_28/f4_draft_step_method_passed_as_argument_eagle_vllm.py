"""vLLM EAGLE proposer: propose() passes a bound step method as an argument to the draft loop."""
import torch


class EagleProposer:
    def __init__(self, vllm_config, device, runner, target_layer_idx):
        self.runner = runner
        self.dtype = vllm_config.model_config.dtype
        self.num_speculative_tokens = vllm_config.speculative_config.num_speculative_tokens
        self.tree_mode = vllm_config.speculative_config.speculative_token_tree is not None
        self.target_layer_idx = target_layer_idx

    def _run_draft(self, num_steps, step_fn, attn_metadata):
        return [step_fn(s, attn_metadata) for s in range(num_steps)]

    def _dense_target_step(self, s, attn_metadata):
        kv = self.runner.kv_caches[self.target_layer_idx]
        return kv.to(self.dtype)  # positive: f4 CL001 whole target layer cache, reached through step_fn

    def _paged_target_step(self, s, attn_metadata):
        kv = self.runner.kv_caches[self.target_layer_idx]
        return kv[:, attn_metadata.block_table_tensor[:, s]].to(self.dtype)  # negative: this step's blocks gathered first

    def propose(self, target_token_ids, target_positions, target_hidden_states, next_token_ids, common_attn_metadata, sampling_metadata):
        step_fn = self._dense_target_step if self.tree_mode else self._paged_target_step
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        kvs = self._run_draft(self.num_speculative_tokens, step_fn, common_attn_metadata)
        return hidden, kvs
