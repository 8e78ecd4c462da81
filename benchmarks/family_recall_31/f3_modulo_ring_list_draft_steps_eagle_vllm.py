# vLLM EAGLE proposer with multi-step drafting: each draft step reads a (layer name, cache) entry from a
# ring list indexed step % len(ring), built from the runner's caches in __init__.
import torch


class EagleRingProposer:
    def __init__(self, vllm_config, runner, draft_layer_names):
        self.dtype = vllm_config.model_config.dtype
        self.ring = [(name, runner.kv_caches[i]) for i, name in enumerate(draft_layer_names)]
        self.num_spec = vllm_config.speculative_config.num_speculative_tokens

    def _step_cache(self, step: int):
        name, kv_cache = self.ring[step % len(self.ring)]
        return name, kv_cache.to(self.dtype)  # positive: f3 CL001 the whole layer cache of the ring entry, every draft step

    def _step_blocks(self, step: int, block_table):
        name, kv_cache = self.ring[step % len(self.ring)]
        return name, kv_cache[:, block_table].to(self.dtype)  # negative: the requests' blocks ([2, num_blocks, ...])

    def propose(self, target_hidden_states, common_attn_metadata):
        hidden = target_hidden_states
        for step in range(self.num_spec):
            if common_attn_metadata.max_query_len == 1:
                _, kv = self._step_cache(step)
            else:
                _, kv = self._step_blocks(step, common_attn_metadata.block_table_tensor)
            hidden = self.model.step(hidden, kv)
        return hidden.to(self.dtype)  # negative: hidden states
