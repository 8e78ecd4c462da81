import torch


class AllLayerPrefetchBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.layer_ids = list(range(model_runner.start_layer, model_runner.end_layer))

    def _iter_dense(self, pool, ids):
        for i in ids:
            yield pool.get_key_buffer(i).to(self.dtype)  # positive: f4 CL001 every layer's whole buffer, yielded by a generator helper

    def _iter_rows(self, pool, ids, loc):
        for i in ids:
            yield pool.get_key_buffer(i)[loc].to(self.dtype)  # negative: the step's slots gathered first

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        if forward_batch.forward_mode.is_decode():
            self.dense = dict(zip(self.layer_ids, self._iter_dense(pool, self.layer_ids)))
        else:
            self.dense = dict(zip(self.layer_ids, self._iter_rows(pool, self.layer_ids, forward_batch.out_cache_loc)))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.dense[layer.layer_id]
