# vLLM v1 EAGLE proposer sharing the target's attention layers; a draft backend without
# FP8 support reads the target cache through the runner's kv_caches list.
import torch


class EagleProposer:
    def load_model(self, target_model):
        self.attn_layer_names = list(self.vllm_config.compilation_config.static_forward_context)

    def propose(self, target_token_ids, target_positions, target_hidden_states, next_token_ids, common_attn_metadata, sampling_metadata):
        runner = self.runner
        draft_kv = []
        for name in self.attn_layer_names:
            cache = runner.kv_caches[runner.layer_to_index[name]]
            if self.draft_no_fp8 and cache.dtype == torch.float8_e4m3fn:
                cache = cache.to(self.dtype)  # positive: f6 CL001 whole target cache per proposal
            draft_kv.append(cache)
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        return self._run_draft(hidden, draft_kv, common_attn_metadata)

    def dummy_run(self, num_tokens):
        for cache in self.runner.kv_caches:
            cache.zero_()
