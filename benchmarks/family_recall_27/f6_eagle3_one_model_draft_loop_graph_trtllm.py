import torch
from torch import nn


class Eagle3OneModelWorker(nn.Module):
    """One-model EAGLE3: the draft loop runs inside the target's decode CUDA graph."""

    def __init__(self, spec_config, draft_dtype, draft_layer_idx):
        super().__init__()
        self.max_draft_len = spec_config.max_draft_len
        self.draft_kv_dtype = draft_dtype
        self.draft_layer_idx = draft_layer_idx

    def forward(self, input_ids, position_ids, hidden_states, logits, attn_metadata, spec_metadata, draft_model):
        mgr = attn_metadata.kv_cache_manager
        hidden = spec_metadata.get_hidden_states().to(self.draft_kv_dtype)  # negative: captured hidden states
        tokens = []
        for step in range(self.max_draft_len):
            kv = mgr.get_buffers(self.draft_layer_idx)
            if kv.dtype != self.draft_kv_dtype:
                kv = kv.to(self.draft_kv_dtype)  # positive: f6 CL001 every block of the draft layer, each draft step of each replay
            recent = mgr.get_buffers(self.draft_layer_idx)[spec_metadata.draft_block_ids].to(self.draft_kv_dtype)  # negative: blocks
            hidden = draft_model(input_ids, position_ids + step, hidden, kv, recent, attn_metadata)
            input_ids = torch.argmax(draft_model.lm_head(hidden), dim=-1)
            tokens.append(input_ids)
        return torch.stack(tokens, dim=-1).to(torch.int32)  # negative: token ids
