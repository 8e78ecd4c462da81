"""TRT-LLM one-model EAGLE3 worker keeping the bound get_buffers of the target and draft managers in a list."""
import torch

from tensorrt_llm._torch.speculative.interface import SpecWorkerBase


class Eagle3OneModelDenseWorker(SpecWorkerBase):
    def __init__(self, spec_config, target_mgr, draft_mgr, dtype=torch.bfloat16):
        super().__init__()
        self._readers = [m.get_buffers for m in (target_mgr, draft_mgr)]
        self.dtype = dtype
        self.num_target_layers = target_mgr.num_layers

    def forward(self, input_ids, position_ids, hidden_states, attn_metadata, spec_metadata):
        read_target, read_draft = self._readers
        for i in range(self.num_target_layers):
            dense = read_target(i).to(self.dtype)  # positive: f1 CL001 whole target layer through the bound getter kept in a list
            self._verify_layer(i, dense, attn_metadata)
        ids = attn_metadata.kv_cache_block_offsets[0, :, 0]
        draft_blocks = read_draft(0)[ids].to(self.dtype)  # negative: blocks of the draft layer
        hs = hidden_states.to(self.dtype)  # negative: hidden states
        return self._draft_step(draft_blocks, hs, spec_metadata)

    def _verify_layer(self, i, dense, attn_metadata):
        self.verified[i] = dense.shape[0]

    def _draft_step(self, blocks, hs, spec_metadata):
        return hs, blocks.shape
