from types import SimpleNamespace

import torch


class DraftExtendBackend:
    def __init__(self, model_runner):
        self.rec = SimpleNamespace(pool=model_runner.token_to_kv_pool, dtype=model_runner.dtype, rows=None)

    def init_forward_metadata(self, forward_batch):
        self.rec.rows = forward_batch.out_cache_loc

    def forward_extend(self, q, k, v, layer, forward_batch):
        r = self.rec
        new = r.pool.get_value_buffer(layer.layer_id)[r.rows].to(r.dtype)  # negative: this step's rows
        full = r.pool.get_value_buffer(layer.layer_id).to(r.dtype)  # positive: f3 CL001 whole layer from a SimpleNamespace record
        return new, full
