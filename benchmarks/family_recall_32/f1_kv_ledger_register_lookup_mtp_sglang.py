"""sglang MTP draft: a _KVLedger registers the target pool per layer at init and is looked up per step."""
import torch


class _KVLedger:
    def __init__(self):
        self._pools = {}

    def register(self, layer_id, pool):
        self._pools[layer_id] = pool

    def dense_key(self, layer_id, dtype):
        return self._pools[layer_id].get_key_buffer(layer_id).to(dtype)  # positive: f1 CL001 whole target key buffer, called per draft step

    def rows(self, layer_id, loc, dtype):
        return self._pools[layer_id].get_key_buffer(layer_id)[loc].to(dtype)  # negative: row gather before the cast


class MTPDraftAttnBackend:
    def __init__(self, model_runner, target_pool, layer_ids):
        self.ledger = _KVLedger()
        for lid in layer_ids:
            self.ledger.register(lid, target_pool)
        self.model_dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch):
        if forward_batch.forward_mode.is_draft_extend():
            key = self.ledger.dense_key(layer.layer_id, q.dtype)
        else:
            key = self.ledger.rows(layer.layer_id, forward_batch.out_cache_loc, q.dtype)
        q = q.to(self.model_dtype)  # negative: the query
        return self._attend(q, key, layer)

    def _attend(self, q, key, layer):
        return q, key, layer
