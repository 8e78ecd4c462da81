"""vLLM EAGLE proposer keeping copy.copy(runner.kv_caches), a shallow list copy holding the same layer tensors."""
import copy

import torch

from vllm.v1.spec_decode.eagle import EagleProposer


class DenseEagleProposer(EagleProposer):
    def load_model(self, target_model):
        super().load_model(target_model)
        self._kv = copy.copy(self.runner.kv_caches)
        self._draft_idx = [self.runner.layer_to_index[n] for n in self.attn_layer_names]
        self._dense, self._first = {}, {}

    def propose(self, target_token_ids, target_positions, target_hidden_states, next_token_ids, common_attn_metadata, sampling_metadata):
        blocks = common_attn_metadata.block_table_tensor[:, 0]
        for i in self._draft_idx:
            self._dense[i] = self._kv[i].to(self.dtype)  # positive: f3 CL001 whole draft layer cache out of the shallow list copy
            self._first[i] = self._kv[i][:, blocks].to(self.dtype)  # negative: first block of each request
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        return super().propose(target_token_ids, target_positions, hidden, next_token_ids, common_attn_metadata, sampling_metadata)
