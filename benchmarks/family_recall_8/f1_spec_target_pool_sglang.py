import torch


class DraftMLAWorker:
    """EAGLE-style draft worker that reads the target model's pool."""

    def __init__(self, target_worker, draft_runner):
        self.target_worker = target_worker
        self.draft_runner = draft_runner

    @property
    def target_pool(self):
        return self.target_worker.model_runner.token_to_kv_pool

    def forward_extend(self, q, layer, forward_batch):
        lat = self.target_pool.get_key_buffer(layer.layer_id)
        return lat.to(q.dtype)  # positive: f1 CL001 target pool reached from the draft worker

    def forward(self, q, layer, forward_batch):
        dpool = self.draft_runner.token_to_kv_pool
        mine = dpool.get_key_buffer(layer.layer_id).to(torch.bfloat16)  # positive: f1 CL001 draft pool layer
        hidden = forward_batch.spec_info.hidden_states.to(q.dtype)  # negative: draft hidden states
        rows = self.target_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].float()  # negative: gathered rows
        return mine, hidden, rows
