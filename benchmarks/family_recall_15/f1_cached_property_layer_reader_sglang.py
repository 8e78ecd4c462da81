import functools

import torch


class _LayerReader:
    def __init__(self, pool):
        self.pool = pool

    def latent(self, layer_id):
        return self.pool.get_key_buffer(layer_id)

    def rows(self, layer_id, loc):
        return self.pool.get_key_buffer(layer_id)[loc]


class FlashMLAFallbackBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.req_to_token = model_runner.req_to_token_pool.req_to_token

    @functools.cached_property
    def kv_reader(self):
        return _LayerReader(self.model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch):
        k_all = self.kv_reader.latent(layer.layer_id).to(q.dtype)  # positive: f1 CL001 cached_property reader returns the whole latent buffer
        rope = self.kv_reader.pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 the reader's pool attribute, whole value buffer
        k_live = self.kv_reader.rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: gathered rows
        table = self.req_to_token[forward_batch.req_pool_indices].to(torch.int32)  # negative: request table, not the pool
        return self._mla(q, k_all, k_live, table)

    def forward_extend(self, q, k, v, layer, forward_batch):
        k_rows = self.kv_reader.rows(layer.layer_id, forward_batch.out_cache_loc)
        return self._mla(q, k_rows.to(q.dtype), k_rows, None)  # negative: rows converted

    def _mla(self, q, a, b, table):
        return q
