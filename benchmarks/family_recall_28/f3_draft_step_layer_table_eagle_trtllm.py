"""TensorRT-LLM EAGLE draft loop: a dict from draft step to [(layer_idx, buffer, scale)] lists built in prepare()."""
import torch


class EagleDraftMetadata:
    def __init__(self, kv_cache_manager, num_draft_steps, draft_layers):
        self.kv_cache_manager = kv_cache_manager
        self.num_draft_steps = num_draft_steps
        self.draft_layers = draft_layers
        self.step_layers = {}
        self.draft_block_ids = {}

    def prepare(self):
        mgr = self.kv_cache_manager
        self.step_layers = {s: [(i, mgr.get_buffers(i), mgr.kv_scale_orig_quant) for i in self.draft_layers[s]] for s in range(self.num_draft_steps)}


class EagleDraftLoop:
    def __init__(self, draft_model):
        self.draft_model = draft_model

    def forward(self, metadata, hidden_states):
        outs = []
        for step in range(metadata.num_draft_steps):
            for idx, buf, scale in metadata.step_layers[step]:
                dense = buf.float()  # positive: f3 CL001 whole layer buffer taken from the step table
                dq = scale.float()  # negative: scale
                rows = buf[metadata.draft_block_ids[step]].float()  # negative: this step's blocks gathered first
                outs.append(self.draft_model.layers[idx].attend(hidden_states, dense * dq, rows))
        return outs
