import torch

from .kv_bridge import TargetKVBridge


class EAGLEDraftWorker:
    def __init__(self, target_worker, draft_model_runner, shared_layer_ids):
        self.draft_model_runner = draft_model_runner
        self.shared_layer_ids = shared_layer_ids
        self.bridge = TargetKVBridge(target_worker.model_runner.token_to_kv_pool)

    def forward_draft_extend(self, batch, hidden_states, next_token_ids):
        shared = {lid: self.bridge.dense_layer(lid) for lid in self.shared_layer_ids}
        new_rows = {lid: self.bridge.rows(lid, batch.out_cache_loc) for lid in self.shared_layer_ids}
        hidden_states = hidden_states.to(torch.bfloat16)  # negative: hidden states
        return self.draft_model_runner.forward(batch, hidden_states, shared, new_rows)

    def verify(self, batch, spec_info):
        logits = spec_info.logits.float()  # negative: logits
        return logits.argmax(-1)
