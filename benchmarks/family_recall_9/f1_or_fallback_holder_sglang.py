"""The pool holder is picked with `or` chains: an optional override pool, else the batch's pool."""
import torch


class OverridablePoolBackend:
    def __init__(self, model_runner, override_pool=None):
        self.model_runner = model_runner
        self.override_pool = override_pool
        self.cached_lens = None
        self.scratch_rows = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        holder = self.override_pool or forward_batch.token_to_kv_pool
        t = holder.get_key_buffer(layer.layer_id)
        dense = t.to(q.dtype)  # positive: f1 CL001 key buffer of whichever pool the `or` picked
        lens = self.cached_lens or forward_batch.seq_lens
        lens_f = lens.to(torch.float32)  # negative: per-request lengths
        return self._attend(q, dense, lens_f)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = getattr(self.model_runner, "draft_pool", None) or self.model_runner.token_to_kv_pool
        vb = (self.override_pool or src).get_value_buffer(layer.layer_id).half()  # positive: f1 CL001 value buffer through two `or` picks
        rows = src.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        rows_q = rows.to(q.dtype)  # negative: gathered rows of this step
        tmp = self.scratch_rows or k
        tmp_q = tmp.to(q.dtype)  # negative: the step's keys (or a per-step scratch)
        return self._attend(q, vb, rows_q, tmp_q)

    def _attend(self, q, *xs):
        return q
