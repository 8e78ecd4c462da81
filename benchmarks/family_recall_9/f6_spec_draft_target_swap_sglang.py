"""Speculative decoding: the draft pool is swapped into `self.pool` by a context manager for draft extend."""
import contextlib

import torch


class SwapPoolBackend:
    def __init__(self, model_runner, draft_pool):
        self.pool = model_runner.token_to_kv_pool
        self.draft_pool = draft_pool

    @contextlib.contextmanager
    def _draft_mode(self):
        self.pool, self.draft_pool = self.draft_pool, self.pool
        try:
            yield self.pool
        finally:
            self.pool, self.draft_pool = self.draft_pool, self.pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        mode = forward_batch.forward_mode
        if mode.is_draft_extend():
            with self._draft_mode() as active:
                t = active.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 draft pool swapped in and yielded
        elif mode.is_target_verify():
            t = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 target pool during verify
            mask = forward_batch.spec_info.custom_mask.to(torch.bool)  # negative: tree mask
        else:
            t = self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        draft = forward_batch.spec_info.draft_token.to(torch.int64)  # negative: draft tokens
        return q, t, draft
