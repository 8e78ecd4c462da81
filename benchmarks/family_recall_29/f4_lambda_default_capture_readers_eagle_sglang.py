"""sglang EAGLE multi-layer draft: per-layer reader lambdas with a default argument capturing the loop variable."""
import torch


class MultiLayerEagleDraftBackend:
    def __init__(self, model_runner, target_layer_ids):
        self.target_layer_ids = target_layer_ids
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        self.readers = [lambda lid=lid: pool.get_key_buffer(lid).to(self.dtype)  # positive: f4 CL001 each reader converts a whole target key buffer when called
                        for lid in self.target_layer_ids]
        self.row_readers = [lambda loc, lid=lid: pool.get_key_buffer(lid)[loc].to(self.dtype)  # negative: rows first
                            for lid in self.target_layer_ids]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        idx = self.target_layer_ids.index(layer.layer_id)
        if forward_batch.forward_mode.is_draft_extend():
            keys = self.row_readers[idx](forward_batch.out_cache_loc)
        else:
            keys = self.readers[idx]()
        return self._attend(q.to(self.dtype), keys, forward_batch)  # negative: the query
