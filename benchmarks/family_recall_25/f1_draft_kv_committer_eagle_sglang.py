import torch


class DraftKVCommitter:
    """Holds the target pool for the EAGLE draft worker; commits accepted draft KV."""

    def __init__(self, token_to_kv_pool, draft_dtype):
        self.pool = token_to_kv_pool
        self.draft_dtype = draft_dtype

    def target_layer(self, layer_id):
        return self.pool.get_key_buffer(layer_id)

    def target_rows(self, layer_id, loc):
        return self.pool.get_key_buffer(layer_id)[loc]


class EAGLEWorker:
    def __init__(self, target_worker, draft_dtype=torch.bfloat16):
        pool = target_worker.model_runner.token_to_kv_pool
        self.committer = DraftKVCommitter(pool, draft_dtype)

    def forward_draft_extend(self, batch, layer_id):
        c = self.committer
        full = c.target_layer(layer_id).to(c.draft_dtype)  # positive: f1 CL001 target pool layer read through the committer object, whole
        accepted = c.target_rows(layer_id, batch.out_cache_loc).to(c.draft_dtype)  # negative: accepted slots gathered before the cast
        scale = batch.spec_info.hidden_states.to(c.draft_dtype)  # negative: hidden states, not the pool
        return full, accepted, scale
