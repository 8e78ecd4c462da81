import torch


class DraftKVView:
    def __init__(self, token_to_kv_pool, compute_dtype):
        self.pool = token_to_kv_pool
        self.compute_dtype = compute_dtype

    def key(self, layer_id):
        return self.pool.get_key_buffer(layer_id).to(self.compute_dtype)  # positive: f1 CL001 whole key buffer widened for the draft

    def value_rows(self, layer_id, loc):
        return self.pool.get_value_buffer(layer_id)[loc].to(self.compute_dtype)  # negative: rows gathered first


class LookaheadWorker:
    def __init__(self, target_worker, dtype):
        pool = target_worker.model_runner.token_to_kv_pool
        self.view = DraftKVView(pool, dtype)
        self.dtype = dtype

    def forward_batch_speculative_generation(self, batch, layer_ids):
        keys = [self.view.key(lid) for lid in layer_ids]
        vals = [self.view.value_rows(lid, batch.out_cache_loc) for lid in layer_ids]
        return keys, vals, batch.input_ids.to(torch.int64)  # negative: token ids
