# vLLM v1 EAGLE proposer on a target cache the draft kernel cannot read in FP8.
import torch


class EagleProposer:
    def propose(self, target_token_ids, target_positions, target_hidden_states, next_token_ids,
                common_attn_metadata, sampling_metadata):
        fwd_ctx = self.vllm_config.compilation_config.static_forward_context
        for name in self.attn_layer_names:
            layer = fwd_ctx[name]
            if self._draft_reads_bf16 and layer.kv_cache[0].dtype != torch.bfloat16:
                self._draft_kv[name] = layer.kv_cache[0].to(torch.bfloat16)  # positive: f6 CL001 target cache widened per proposal
        hidden = target_hidden_states.to(torch.bfloat16)  # negative: hidden states
        return self._run_draft(hidden, next_token_ids, common_attn_metadata)
