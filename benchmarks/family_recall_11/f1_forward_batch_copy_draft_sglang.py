import copy

import torch


class DraftExtendBackend:
    def __init__(self, model_runner, draft_runner):
        self.draft_pool = draft_runner.token_to_kv_pool

    def _batch_for(self, forward_batch):
        if forward_batch.forward_mode.is_draft_extend():
            fb = copy.copy(forward_batch)
            fb.token_to_kv_pool = self.draft_pool
            return fb
        return forward_batch

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        fb = self._batch_for(forward_batch)
        if save_kv_cache:
            fb.token_to_kv_pool.set_kv_buffer(layer, fb.out_cache_loc, k, v)
        k_all = fb.token_to_kv_pool.get_key_buffer(layer.layer_id)
        v_all = fb.token_to_kv_pool.get_value_buffer(layer.layer_id)
        if fb.forward_mode.is_draft_extend():
            k_all = k_all.to(q.dtype)  # positive: f1 CL001 whole key buffer of the draft pool, read from a copied batch
            v_all = v_all.to(q.dtype)  # positive: f1 CL001 whole value buffer of the draft pool
        loc = fb.out_cache_loc.to(torch.int64)  # negative: slot indices
        k_new = k.to(q.dtype)  # negative: the step's keys
        return k_all, v_all, loc, k_new
