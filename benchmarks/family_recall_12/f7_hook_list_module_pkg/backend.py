import torch

from . import hooks


class HookedMLABackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kv = hooks.run_pre(kbuf, self.dtype)
        o = self._attend(q, kv)
        return hooks.run_post(o)

    def _attend(self, q, kv):
        return q.to(self.dtype)  # negative: batch query

    def init_forward_metadata(self, forward_batch):
        self.kv_indptr = forward_batch.kv_indptr.to(torch.int32)  # negative: indptr

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q
