"""EAGLE3 draft-extend backend reading the target model's pool."""
from .kv_read import *  # noqa: F401,F403


class Eagle3DraftExtendBackend:
    def __init__(self, model_runner, target_pool):
        self.target_pool = target_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.forward_mode.is_draft_extend():
            keys = target_rows(self.target_pool, layer.layer_id, forward_batch.out_cache_loc, self.dtype)  # noqa: F405
        else:
            keys = target_layer(self.target_pool, layer.layer_id, self.dtype)  # noqa: F405
        hidden = forward_batch.spec_info.hidden_states.to(self.dtype)  # negative: hidden states
        return self._attend(q, keys, hidden, forward_batch)
