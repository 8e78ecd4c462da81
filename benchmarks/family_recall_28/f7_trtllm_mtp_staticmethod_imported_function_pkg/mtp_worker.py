"""MTP worker: the target-cache readers are class attributes wrapped in staticmethod."""
import torch

from . import kv_access


class MTPWorker:
    _target_view = staticmethod(kv_access.target_layer)
    _target_rows = staticmethod(kv_access.target_rows)

    def __init__(self, spec_config, target_layer_ids, model_dtype):
        self.num_nextn = spec_config.num_nextn_predict_layers
        self.target_layer_ids = target_layer_ids
        self.model_dtype = model_dtype

    def forward(self, input_ids, hidden_states, attn_metadata, draft_model):
        mgr = attn_metadata.kv_cache_manager
        dense = [self._target_view(mgr, i, self.model_dtype) for i in self.target_layer_ids]
        recent = self._target_rows(mgr, self.target_layer_ids[-1], attn_metadata.kv_cache_block_offsets[0], self.model_dtype)
        scale = kv_access.accepted_scale(mgr, self.model_dtype)
        hidden = hidden_states.to(torch.bfloat16)  # negative: hidden states
        return draft_model(input_ids, hidden, dense, recent, scale)
